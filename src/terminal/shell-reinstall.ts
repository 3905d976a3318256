/**
 * Shell integration for a shell that is already running: one that replaced the session's shell
 * (`exec bash`, `exec su -`) or runs inside it (`bash`, `zsh -f`). Such a shell starts without our
 * hooks, so no command in it would ever be marked done. It gets the same hooks a session's start
 * installs (shell-scripts.ts), minus the loading of the user's rc files (that shell loaded its own
 * already), from a file it is told to source with one typed line:
 *  - the file is private (0600, in the private runtime dir) and removes itself once read (quietly:
 *    a sandbox may forbid it; ptyhub removes it after), so the
 *    nonce never appears on a command line nor in the shell's history;
 *  - the typed line starts with a space, which keeps it out of history (fish always, bash with
 *    ignorespace, zsh with HIST_IGNORE_SPACE) and checks that the file is readable (a shell of
 *    another user may not read it: then nothing happens, and the caller finds no marks);
 *  - the file ends with an R mark, its nonce written in (the hooks unset their variable): the end
 *    mark of the next prompt reports the line that installed the hooks, not a command (Session
 *    drops it).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { OSC_MARK_ID } from "./shell-scripts.ts";
import { quotePosix, type Integration, type PosixShellFamily } from "./shell-integration.ts";
import { shellDescriptor } from "./shells/all-shells.ts";
import type { ShellDescriptor } from "./shells/descriptor.ts";

/** The hooks part of a shell's startup script (throws when the script no longer has its anchor). */
function hooksOf(shell: ShellDescriptor): string {
  const { script, after } = shell.hooks;
  const at = script.indexOf(after);
  if (at < 0) throw new Error(`${shell.family} integration script changed: update its descriptor's hooks.after`);
  return script.slice(at + after.length);
}

/** The completion strategy a shell family gets: hooks, or per-command markers (POSIX sh). */
export function integrationOf(family: PosixShellFamily): Integration {
  return shellDescriptor(family)!.integration;
}

export interface Reinstall {
  /** Where the script goes (the caller writes it, 0600, and removes it if the shell did not). */
  path: string;
  script: string;
  /** What to type at the shell's prompt (without the final Enter). */
  line: string;
}

/**
 * The script and the typed line that install `family`'s hooks into a running shell. A shell that
 * has them already (its ready mark was merely late) is left as it is: twice installed, every
 * prompt would report two ends.
 */
export function reinstallFor(family: PosixShellFamily, nonce: string, dir: string): Reinstall {
  const shell = shellDescriptor(family)!;
  const path = join(dir, `reinstall-${randomBytes(6).toString("hex")}.${family}`);
  const quoted = quotePosix(path);
  const reinstalled = `'\\033]${OSC_MARK_ID};%s;R\\007'`;
  const hooked = shell.hooks.definedBy;
  if (shell.syntax === "fish") {
    const script =
      `if not functions -q ${hooked}\nset -g __ptyhub_nonce ${nonce}\n${hooksOf(shell)}` +
      `printf ${reinstalled} ${nonce}\nend\ncommand rm -f -- ${quoted} 2>/dev/null\n`;
    return { path, script, line: ` test -r ${quoted}; and source ${quoted}` };
  }
  const script =
    `if ! command -v ${hooked} >/dev/null 2>&1; then\n__ptyhub_nonce=${nonce}\n${hooksOf(shell)}` +
    `printf ${reinstalled} ${nonce}\nfi\ncommand rm -f -- ${quoted} 2>/dev/null\n`;
  return { path, script, line: ` [ -r ${quoted} ] && . ${quoted}` };
}
