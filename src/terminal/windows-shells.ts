/**
 * Shell integration for cmd.exe and PowerShell on a pseudo console: how each is started so that it
 * prints the nonce-guarded marks, and how term_exec types a command line into cmd.exe.
 *
 * cmd.exe has no hooks (no pre-exec, and PROMPT can show no status), so it gets what a POSIX sh
 * gets: per-command markers ("marker" completion). PROMPT carries the prompt's marks (A, then the
 * user's prompt, then B); term_exec wraps each command between a start mark and a `call` of the
 * end-marker batch file (CMD_END_SCRIPT). cmd keeps everything in its environment, so the nonce is
 * in PROMPT and in __ptyhub_m, which programs started in the session inherit: they can read it and
 * print a mark that passes (docs/platforms.md says so). PowerShell takes it from PTYHUB_NONCE and removes
 * that before anything else runs (its starting environment still holds it, as /proc/PID/environ
 * would on Linux).
 */
import { win32 } from "node:path";
import { AppError } from "../api/errors.ts";
import { CMD_END_SCRIPT, PWSH_NONCE_ENV, PWSH_SCRIPT } from "./windows-shell-scripts.ts";

export type WindowsShellFamily = "cmd" | "pwsh";
export const WINDOWS_SHELL_FAMILIES: readonly WindowsShellFamily[] = ["cmd", "pwsh"];

/** The end-marker batch file's name in the shell-script directory (shell-integration.ts). */
export const CMD_END_FILE = "cmd-end.cmd";
export { CMD_END_SCRIPT };

const WINDOWS_SHELLS: Record<string, WindowsShellFamily> = {
  cmd: "cmd",
  powershell: "pwsh",
  pwsh: "pwsh",
};

/** cmd.exe, powershell.exe or pwsh.exe, by name or path (any case, with or without .exe). */
export function windowsShellFamilyOf(executable: string): WindowsShellFamily | null {
  const name = win32
    .basename(executable)
    .toLowerCase()
    .replace(/\.exe$/, "");
  return WINDOWS_SHELLS[name] ?? null;
}

/** The mark's start and end (ST: Wine's console drops a BEL there), for cmd's environment. */
function markParts(nonce: string): { prefix: string; end: string } {
  return { prefix: `\x1b]6973;${nonce};`, end: "\x1b\\" };
}

/** cmd's special characters, escaped so that an expanded variable's text is taken literally. */
function escapeCmd(text: string): string {
  return text.replace(/[\^&|<>()]/g, "^$&");
}

/**
 * The PROMPT cmd.exe gets: A, the user's own PROMPT (or cmd's default, the path and `>`), B. $E is
 * ESC in PROMPT's codes; the marks end with ST ($E\).
 */
export function cmdPrompt(nonce: string, userPrompt: string | undefined): string {
  const mark = (kind: string) => `$E]6973;${nonce};${kind}$E\\`;
  return `${mark("A")}${userPrompt || "$P$G"}${mark("B")}`;
}

export interface WindowsShellLaunch {
  argv: string[];
  /** Variables added to the session's environment. */
  env: Record<string, string>;
  integration: "marker" | "shell";
  family: WindowsShellFamily;
}

/**
 * argv and environment that start a Windows shell interactively with integration installed.
 * `scriptDir` holds the end-marker batch file (shell-integration.ts writes it).
 */
export function windowsShellLaunch(
  shellPath: string,
  family: WindowsShellFamily,
  nonce: string,
  env: Record<string, string>,
  scriptDir: string,
): WindowsShellLaunch {
  if (family === "pwsh") {
    // -EncodedCommand: no script file, so no execution policy applies; the profile loads first.
    const encoded = Buffer.from(PWSH_SCRIPT, "utf16le").toString("base64");
    return {
      argv: [shellPath, "-NoLogo", "-NoExit", "-EncodedCommand", encoded],
      env: { [PWSH_NONCE_ENV]: nonce },
      integration: "shell",
      family,
    };
  }
  const { prefix, end } = markParts(nonce);
  // Real cmd.exe reads PROMPT from its environment at start, Wine's does not: the `prompt` command
  // sets it in both. Its value is expanded from __ptyhub_p (then unset), so the nonce is in no argv;
  // AutoRun (the user's startup commands) runs first, as cmd has no /d here.
  return {
    argv: [shellPath, "/s", "/k", "prompt %__ptyhub_p% & set __ptyhub_p="],
    env: {
      __ptyhub_p: escapeCmd(cmdPrompt(nonce, env.PROMPT)),
      __ptyhub_m: prefix,
      __ptyhub_t: end,
      // With its drive: a path without one is looked up on the current drive, which `cd /d` changes.
      __ptyhub_d: win32.resolve(scriptDir, CMD_END_FILE),
    },
    integration: "marker",
    family,
  };
}

/**
 * `if` and `for` at a command's start (of the line, or after an operator) take the rest of the line
 * as their body, the end marker too: it would run per loop, or not at all when the condition is false.
 */
const TAKES_REST_OF_LINE = /(?:^|[&|(])\s*@?\s*(?:if|for)\s/i;

/**
 * The line term_exec types into cmd.exe for one command: the start mark (`set /p` prints it without
 * a newline), `(call )` to set ERRORLEVEL to 0 (builtins such as echo leave it as it was), the
 * command, then the end marker. cmd's precedence keeps a command's own `&&`, `||` and `|` inside
 * its part of the line. A command with `if` or `for` goes in parentheses, where the end marker stays
 * out of its body (parentheses only then: in a block, a `)` such as `echo (hi)`'s would end it).
 * One line only: cmd runs each line as its own command.
 */
export function cmdCommandLine(command: string): string {
  if (/[\r\n]/.test(command)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "a cmd.exe session runs one line per term_exec: the command has a line break",
      "Join the commands with & (or && to stop at the first failure), or run each with its own term_exec.",
    );
  }
  const body = TAKES_REST_OF_LINE.test(command) ? `(${command})` : command;
  return `<nul set /p "=%__ptyhub_m%C%__ptyhub_t%" & (call ) & ${body} & call "%__ptyhub_d%"`;
}

/**
 * The line term_exec types into PowerShell: the command as it is, or, with line breaks (each would
 * run as it is typed), the whole text decoded and run by Invoke-Expression in the session's scope.
 */
export function pwshCommandLine(command: string): string {
  if (!/[\r\n]/.test(command)) return command;
  const encoded = Buffer.from(command, "utf8").toString("base64");
  return `Invoke-Expression ([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('${encoded}')))`;
}
