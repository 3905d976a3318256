/**
 * Shell integration: how a shell is launched so that it reports command boundaries, exit codes
 * and cwd (see shell-scripts.ts), how its marks are parsed, and how a command line is typed for
 * `term_exec`. bash, zsh and fish get hooks ("shell" completion); POSIX sh gets per-command
 * markers ("marker" completion); on Windows, cmd.exe gets markers and PowerShell a prompt function
 * (windows-shells.ts); any other program gets none and is driven with term_send.
 */
import { createHash, randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { ensureOwnedDir, runtimeDir } from "../paths.ts";
import { ensureOwnedFile } from "./owned-file.ts";
import { OSC_MARK_ID } from "./shell-scripts.ts";
import {
  POSIX_SHELL_FAMILIES,
  type PosixShellFamily,
  SHELLS,
  shellDescriptor,
  shellFamilyOf,
} from "./shells/all-shells.ts";
import type { Integration } from "./shells/descriptor.ts";
import {
  CMD_END_FILE,
  CMD_END_SCRIPT,
  cmdCommandLine,
  pwshCommandLine,
  WINDOWS_SHELL_FAMILIES,
  type WindowsShellFamily,
} from "./windows-shells.ts";

export { OSC_MARK_ID, shellFamilyOf, type Integration, type PosixShellFamily };

/** The POSIX shells (shells/all-shells.ts), and cmd.exe and PowerShell on a pseudo console (windows-shells.ts). */
export type ShellFamily = PosixShellFamily | WindowsShellFamily;

const SHELL_FAMILIES = new Set<string>([...POSIX_SHELL_FAMILIES, ...WINDOWS_SHELL_FAMILIES]);

/** `value` names a shell family ptyhub integrates with (what the daemon's attach answer may carry). */
export function isShellFamily(value: unknown): value is ShellFamily {
  return typeof value === "string" && SHELL_FAMILIES.has(value);
}

export function newNonce(): string {
  return randomBytes(12).toString("hex");
}

/**
 * Writes the scripts into the private runtime dir, named by their content's hash; returns its
 * path. Every time a session starts, the directories and files are checked again (ours, private,
 * not links, the expected text) and rewritten where not: a shell sources only what we wrote
 * (owned-file.ts). A few stats and reads of small files.
 */
export function scriptDir(): string {
  const files: Record<string, string> = { [CMD_END_FILE]: CMD_END_SCRIPT };
  for (const shell of SHELLS) Object.assign(files, shell.files);
  const all = Object.entries(files).flat().join("\0");
  const dir = ensureOwnedDir(
    join(runtimeDir(), `shell-${createHash("sha256").update(all).digest("hex").slice(0, 12)}`),
  );
  for (const [name, text] of Object.entries(files)) {
    if (name.includes("/")) ensureOwnedDir(join(dir, dirname(name)));
    ensureOwnedFile(join(dir, name), text);
  }
  return dir;
}

/** Where a session's reinstall scripts are written: see reinstallDir. */
const REINSTALL_DIR = "reinstall";
/** Hex digits of the session id's hash naming its reinstall directory. */
const REINSTALL_ID_CHARS = 16;

/**
 * The directory, under the private runtime dir, where the hooks re-installed into session
 * `sessionId`'s shell are written for it to source (session/reintegrate.ts): one per session,
 * so a sandboxed session, from which the runtime dir is hidden, can be shown its own alone
 * (sandbox/plan.ts). Named by a hash: a session id may be `..`.
 */
export function reinstallDir(sessionId: string): string {
  const parent = ensureOwnedDir(join(runtimeDir(), REINSTALL_DIR));
  const name = createHash("sha256").update(sessionId).digest("hex").slice(0, REINSTALL_ID_CHARS);
  return ensureOwnedDir(join(parent, name));
}

export interface ShellLaunch {
  argv: string[];
  env: Record<string, string>;
  /** What the shell reads on NONCE_FD at its start (the nonce's line): never in env or argv. */
  nonceInput: string;
  /** The shell asks the guard about each command it is about to run, on NONCE_FD kept open (its descriptor says so). */
  verdictChannel: boolean;
  integration: Integration;
  family: PosixShellFamily;
}

/** argv and environment that start `shellPath` interactively with integration installed. */
export function shellLaunch(shellPath: string, nonce: string, env: Record<string, string>): ShellLaunch {
  const shell = shellDescriptor(shellFamilyOf(shellPath)) ?? shellDescriptor("sh")!;
  const { argv, env: extra } = shell.launch(shellPath, scriptDir(), env);
  return {
    argv,
    env: extra,
    nonceInput: `${nonce}\n`,
    verdictChannel: shell.verdictChannel,
    integration: shell.integration,
    family: shell.family,
  };
}

/** Single-quotes for POSIX shells: 'it'\''s'. */
export function quotePosix(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The bytes to type for one `term_exec` command line (without the final Enter). Multi-line
 * commands are folded into one line (`eval "$(printf %b '…')"`) so the shell reads them as one
 * command with one pair of marks; in marker mode the command is wrapped by the marker functions.
 */
export function commandLine(command: string, family: ShellFamily, integration: Integration): string {
  if (family === "cmd") return cmdCommandLine(command);
  if (family === "pwsh") return pwshCommandLine(command);
  const multiLine = command.includes("\n");
  let line = command;
  if (multiLine) {
    const escaped = command.replace(/\\/g, "\\\\").replace(/\r?\n/g, "\\n");
    line =
      shellDescriptor(family)?.syntax === "fish"
        ? `eval (printf %b ${quotePosix(escaped)} | string collect)`
        : `eval "$(printf %b ${quotePosix(escaped)})"`;
  }
  if (integration === "marker") {
    const body = multiLine ? line : `eval ${quotePosix(command)}`;
    return `__ptyhub_c; command ${body}; __ptyhub_d "$?"`;
  }
  return line;
}

export type Mark =
  | { kind: "prompt" }
  | { kind: "ready" }
  | { kind: "start" }
  | { kind: "continuation" }
  /** R: hooks were installed into a running shell (shell-reinstall.ts); its next end mark is no command's. */
  | { kind: "reinstalled" }
  /** S: a command run without integration starts now (a remote boot script says so before exec). */
  | { kind: "program" }
  | { kind: "end"; exitCode: number | null; cwd: string | null }
  /**
   * J;yes;no;text: the shell is about to run `text`, a command of a line it accepted, and waits on
   * its private channel (VERDICT_FD) for ptyhub's verdict: the word `yes` lets it run, `no` refuses.
   */
  | { kind: "judge"; yes: string; no: string; text: string };

const ESCAPES: Record<string, string> = {
  "%25": "%",
  "%3B": ";",
  "%0A": "\n",
  "%0D": "\r",
  "%07": "\x07",
  "%1B": "\x1b",
};
const ESCAPED = /%(25|3B|0A|0D|07|1B)/g;
/** A verdict word: the shell's random digits ($SRANDOM), never empty (an empty word is in every line). */
const VERDICT_WORD = /^[0-9]{8,}$/;

/** Parses an OSC 6973 payload; null when the nonce does not match (a forged or foreign mark). */
export function parseMark(data: string, nonce: string): Mark | null {
  const first = data.indexOf(";");
  if (first < 0 || data.slice(0, first) !== nonce) return null;
  const rest = data.slice(first + 1);
  const kind = rest[0];
  if (kind === "A") return { kind: "prompt" };
  if (kind === "B") return { kind: "ready" };
  if (kind === "C") return { kind: "start" };
  if (kind === "P") return { kind: "continuation" };
  if (kind === "R") return { kind: "reinstalled" };
  if (kind === "S") return { kind: "program" };
  if (kind === "D") {
    const parts = rest.split(";");
    const code = Number.parseInt(parts[1] ?? "", 10);
    const cwdRaw = parts.length > 2 ? parts.slice(2).join(";") : "";
    const cwd = cwdRaw ? cwdRaw.replace(ESCAPED, (m) => ESCAPES[m] ?? m) : null;
    return { kind: "end", exitCode: Number.isFinite(code) ? code : null, cwd };
  }
  if (kind === "J") {
    const [, yes = "", no = "", ...text] = rest.split(";");
    if (!VERDICT_WORD.test(yes) || !VERDICT_WORD.test(no)) return null;
    return { kind: "judge", yes, no, text: text.join(";").replace(ESCAPED, (m) => ESCAPES[m] ?? m) };
  }
  return null;
}
