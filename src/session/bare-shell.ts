/**
 * Telling that a shell without ptyhub's hooks (`exec bash`, a nested `zsh`) waits at its prompt,
 * from the process and the tty alone, without typing anything (see reintegrate.ts).
 */
import { commandArgs, groupLeader } from "../util/process-tree.ts";
import { kindDescriptor } from "../backend/registry/kinds.ts";
import { shellFamilyOf, type PosixShellFamily } from "../terminal/shell-integration.ts";
import { SHELLS, shellDescriptor } from "../terminal/shells/all-shells.ts";
import type { Session } from "./session.ts";

/**
 * Programs that start a shell as another user and wait for it in the same process group
 * (`exec su -`): the shell beside them is the one reading the terminal.
 */
const USER_SWITCHERS = new Set(["su", "runuser", "doas"]);

/**
 * The shell reading the terminal: the leader of its foreground process group, when that is a shell
 * we know (helpers it runs, such as fish's first-run completion generator and the shells that
 * one starts, are in its group but never its leader); or, behind `su` (which stays the leader and
 * waits), the one shell in the group. With `alone`, a POSIX sh counts only without company: the
 * screen is all there is to tell its prompt by, and a script's `sh` running `sleep` shows a
 * prompt-like line too. The leader takes an ioctl and a /proc read; the group (a scan of /proc,
 * about a millisecond) is read only for sh and su. Local sessions only: elsewhere the processes are
 * out of sight.
 */
export function foregroundShell(session: Session, alone = true): PosixShellFamily | null {
  return foregroundShellAndLeader(session, alone)?.family ?? null;
}

/** The foreground group's leader as process-tree.ts reads it: its pid and command name. */
export type GroupLeader = NonNullable<ReturnType<typeof groupLeader>>;

/** foregroundShell's answer with the group's leader it read on the way (su's, behind `su -`). */
export function foregroundShellAndLeader(
  session: Session,
  alone = true,
): { family: PosixShellFamily; leader: GroupLeader } | null {
  if (
    session.exit ||
    session.integration === "none" ||
    !kindDescriptor(session.kind).localProcess ||
    session.pid === null
  )
    return null;
  const group = session.backendHandle.foregroundGroup?.() ?? null;
  const head = group === null ? null : groupLeader(session.pid, group);
  if (head === null) return null;
  const leader = head.comm;
  const family = shellFamilyOf(leader);
  // `bash script.sh` leads the group as "bash" too; its `read -e` must never get the install line.
  if (family !== null && !interactiveShellArgs(commandArgs(head.pid) ?? [])) return null;
  if (family !== null && (!shellDescriptor(family)!.canonicalPrompt || !alone)) return { family, leader: head };
  if (family === null && !USER_SWITCHERS.has(leader)) return null;
  const names = (session.backendHandle.foregroundCommands?.() ?? []).filter((n) => !USER_SWITCHERS.has(n));
  if (family !== null) return names.length === 1 ? { family, leader: head } : null;
  const shells = names.map((n) => shellFamilyOf(n)).filter((f) => f !== null);
  if (shells.length !== 1) return null;
  return shellDescriptor(shells[0]!)!.canonicalPrompt && alone && names.length > 1
    ? null
    : { family: shells[0]!, leader: head };
}

/** Options that make a shell run a command instead of reading the terminal. */
const COMMAND_OPTIONS = new Set(["-c", "--command"]);

/**
 * Whether a shell's arguments (argv[0] first) make it interactive: options only. A script path
 * or a `-c` command means it runs that, even when it reads a line from the terminal meanwhile.
 * The options that take a value are the shell's own (its descriptor), or any shell's when argv[0]
 * names none (a shell started under another name).
 */
export function interactiveShellArgs(argv: readonly string[]): boolean {
  const shell = shellDescriptor(shellFamilyOf(argv[0] ?? ""));
  const withValue = shell ? shell.optionsWithValue : SHELLS.flatMap((s) => s.optionsWithValue);
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (COMMAND_OPTIONS.has(arg) || /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return false;
    if (withValue.includes(arg)) i++;
    else if (arg === "--") return i === argv.length - 1;
    else if (!arg.startsWith("-") && !arg.startsWith("+")) return false;
  }
  return true;
}

/**
 * A shell without our hooks waits at its prompt: a command runs per the marks, a known shell reads
 * the terminal (foregroundShell), and its line editor reads keys (callers also wait for quiet output).
 * bash, zsh and fish read in raw mode with bracketed paste on; a script's `read -n1` is raw too,
 * but without bracketed paste. Their prompt is not always on screen to tell instead: while marks
 * say a command runs, the bare-CR filter clears a line that is redrawn (fish's prompt). fish
 * without its configuration (`fish --no-config`) turns bracketed paste on nowhere, and fish never
 * reads the terminal raw but in its own line editor (its `read` too), so raw mode is enough there.
 * POSIX sh shells (dash reads in canonical mode) only have the screen: a prompt-like last line.
 */
export function bareShell(session: Session): PosixShellFamily | null {
  // Markers only wrap term_exec's lines: after `exec bash` typed with term_send, the phase still
  // says "prompt", and only our prompt's missing ready mark tells that another shell drew it.
  // (Another sh there is not told from ours: the same family, typed for the same way.)
  const unmarked = session.integration === "marker" && session.phase === "prompt" && !atOurPrompt(session);
  if (session.phase !== "running" && !unmarked) return null;
  // Our own shell between a command's start and end marks (fish running its fish_postexec handlers
  // before its prompt event prints the end mark) leads the group in its own tty modes too: that
  // is not another shell.
  if (session.phase === "running" && leadsAsHookedShell(session)) return null;
  const family = foregroundShell(session);
  if (!family || (unmarked && family === session.family)) return null;
  const shell = shellDescriptor(family)!;
  if (shell.canonicalPrompt) return session.state() === "prompt" ? family : null;
  const tty = session.backendHandle.ttyModes();
  if (!tty || tty.canonical) return null;
  return session.emulator.bracketedPaste || shell.rawEditorAlways || session.state() === "prompt" ? family : null;
}

/**
 * Per session, the process that led the foreground group at a prompt our hooks drew, with its
 * arguments then. `exec` keeps the pid but not the arguments (`exec fish` drops our
 * --init-command), so the pair tells our hooked shell from a bare one exec'd in its place.
 */
const hookedShells = new WeakMap<Session, { pid: number; args: string }>();

/** Call at a prompt our hooks drew: the foreground group's leader is the shell with our hooks. */
export function noteHookedShell(session: Session, leaderPid: number): void {
  const args = commandArgs(leaderPid);
  if (args) hookedShells.set(session, { pid: leaderPid, args: args.join("\0") });
  else hookedShells.delete(session);
}

/** The foreground group's leader is the shell noted at our prompt, not exec'd since. */
function leadsAsHookedShell(session: Session): boolean {
  const hooked = hookedShells.get(session);
  if (!hooked || session.backendHandle.foregroundGroup?.() !== hooked.pid) return false;
  return commandArgs(hooked.pid)?.join("\0") === hooked.args;
}

/** The prompt the cursor sits at was drawn by our PS1: its ready mark is on the cursor's row. */
export function atOurPrompt(session: Session): boolean {
  const row = session.emulator.cursorPos().row;
  const marks = session.marksAfter(0);
  for (let i = marks.length - 1; i >= 0; i--) if (marks[i]!.kind === "ready") return marks[i]!.pos.row === row;
  return false;
}
