/**
 * What ptyhub knows about one POSIX shell, in one place: how it is started with the integration,
 * the script files it sources, the line that puts the hooks back into a running one, what it
 * prints on its own (job notices), and how its prompt is told from the process and the tty. Each
 * shell is a file beside this one (bash.ts, zsh.ts, fish.ts, sh.ts) with its scripts; the list is
 * all-shells.ts. The rest of the code asks the descriptor instead of naming a shell.
 */

/** How term_exec knows a command's end: the shell's hooks, per-command markers, or not at all. */
export type Integration = "shell" | "marker" | "none";

/** The language of a shell's command lines: POSIX sh's, or fish's own. */
export type ShellSyntax = "posix" | "fish";

export interface ShellLaunchArgs {
  argv: string[];
  /** Variables added to the session's environment. */
  env: Record<string, string>;
}

export interface ShellDescriptor<F extends string = string> {
  /** The family name: what the session reports, and the remote boot script's mode. */
  family: F;
  /** Program names (a path's last part, a login's leading `-` dropped) that are this shell. */
  names: readonly string[];
  integration: "shell" | "marker";
  syntax: ShellSyntax;
  /**
   * The integration's files, by their name under the private script directory (a `dir/name`
   * makes the directory): each is written there and checked again at every session start.
   */
  files: Readonly<Record<string, string>>;
  /** argv and added variables that start `shellPath` interactively with the files in `dir` loaded. */
  launch(shellPath: string, dir: string, env: Readonly<Record<string, string>>): ShellLaunchArgs;
  /**
   * The shell asks the guard about each line it accepted, on the verdict channel kept open
   * (src/backend/local/verdict-channel.ts, src/guard/accepted-line.ts).
   */
  verdictChannel: boolean;
  /**
   * Where the hooks begin in the startup script (everything before loads the user's own files),
   * and a function they define: present means a running shell has them already (shell-reinstall.ts).
   */
  hooks: { script: string; after: string; definedBy: string };
  /** What the shell prints by itself when a background job ends or stops (job-notices.ts). */
  jobNotice: RegExp | null;
  /** The shell opens a job notice with a blank line of its own (which goes with the notice). */
  noticeAfterBlankLine: boolean;
  /** Options that take the next argument as their value (telling an interactive shell's argv). */
  optionsWithValue: readonly string[];
  /**
   * The line editor reads in canonical mode: only the screen tells its prompt (a prompt-like last
   * line), and it counts as the shell reading the terminal only without company in its group.
   */
  canonicalPrompt: boolean;
  /** Its line editor reads keys raw whenever it reads them, with or without bracketed paste. */
  rawEditorAlways: boolean;
  /**
   * Its line editor takes the prompt to start at column 0 while the shell draws it wherever the
   * output left the cursor (readline): the screen starts the prompt on a fresh row.
   */
  promptAtColumnZero: boolean;
  /** On a remote host (SSH, a container): its files, and the boot script's line that execs it. */
  remote: {
    /** Files by name under the remote private directory; each removes that directory once loaded. */
    files: Readonly<Record<string, string>>;
    /** Runs in the boot script with $d (the directory) and $shell (the shell's path); ends in exec. */
    boot: string;
  };
}

/** A descriptor, its family's name kept as a literal type (the list derives the family union from it). */
export function defineShell<const F extends string>(descriptor: ShellDescriptor<F>): ShellDescriptor<F> {
  return descriptor;
}

/**
 * The remote integration files remove their own directory once loaded (the boot script exports it
 * as PTYHUB_DIR): nothing stays behind on the host.
 */
export const REMOTE_CLEANUP_POSIX = `if [ -n "$PTYHUB_DIR" ]; then rm -rf -- "$PTYHUB_DIR"; fi; unset PTYHUB_DIR\n`;
export const REMOTE_CLEANUP_FISH =
  'if set -q PTYHUB_DIR; and test -n "$PTYHUB_DIR"\n    rm -rf -- $PTYHUB_DIR\nend\nset -e PTYHUB_DIR\n';

/** `script` with `old` replaced by `replacement`; throws when the script no longer has `old`. */
export function replacePart(script: string, old: string, replacement: string, where: string): string {
  if (!script.includes(old)) throw new Error(`${where}: the integration script changed, update the descriptor`);
  return script.replace(old, replacement);
}
