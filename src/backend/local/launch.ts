/**
 * What to run for term_open: argv, environment, and which completion strategy applies.
 * No command → the user's shell with integration. A command that is just a shell's name → that
 * shell with integration. `args` → exactly that argv, no shell. Anything else → `/bin/sh -c`.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { HTTP_TOKEN_ENV } from "../../config/http-token.ts";
import { AppError } from "../../api/errors.ts";
import { expandHome } from "../../paths.ts";
import { isClientEnv, sessionEnvAllow } from "../../config/client-env.ts";
import {
  scriptDir,
  shellFamilyOf,
  shellLaunch,
  type Integration,
  type ShellFamily,
} from "../../terminal/shell-integration.ts";
import { windowsShellFamilyOf, windowsShellLaunch } from "../../terminal/windows-shells.ts";

export interface LaunchRequest {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  defaultShell?: string;
}

export interface LaunchPlan {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  integration: Integration;
  family: ShellFamily | null;
  target: string;
  /** Given to the program on NONCE_FD at its start (an integrated shell's nonce), if any. */
  nonceInput?: string;
  /** Keep NONCE_FD open for the guard's verdicts (a shell whose descriptor says so: src/terminal/shells/). */
  verdictChannel?: boolean;
}

/** Variables of ours that must not leak from the server's environment into sessions. */
const PRIVATE_ENV = ["PTYHUB_NONCE", "PTYHUB_USER_ZDOTDIR", "PTYHUB_USER_ENV", HTTP_TOKEN_ENV];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function resolveCwd(cwd: string | undefined): string {
  if (cwd === undefined) return process.cwd();
  const expanded = expandHome(cwd);
  if (!isAbsolute(expanded)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `cwd must be absolute or start with ~ (got '${cwd}')`,
      "Pass an absolute path such as /home/me/project, or ~/project.",
    );
  }
  const path = resolve(expanded);
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new AppError(
      "CWD_NOT_FOUND",
      `directory not found: ${path}`,
      "Create it first, or pass an existing directory as cwd.",
    );
  }
  return path;
}

export function validateEnv(env: Record<string, string> | undefined): Record<string, string> {
  if (!env) return {};
  for (const [k, v] of Object.entries(env)) {
    if (!ENV_NAME.test(k))
      throw new AppError(
        "INVALID_ARGUMENT",
        `invalid environment variable name '${k}'`,
        "Names are letters, digits and _, not starting with a digit.",
      );
    if (typeof v !== "string" || v.includes("\0"))
      throw new AppError(
        "INVALID_ARGUMENT",
        `environment variable ${k} must be a string without NUL bytes`,
        'Pass env as {"NAME": "value"}.',
      );
  }
  return env;
}

/** Windows: the command interpreter (COMSPEC), for the default session and command lines. */
function windowsShell(): string {
  return process.env.COMSPEC ?? "C:\\Windows\\System32\\cmd.exe";
}

export function defaultShellPath(configured?: string): string {
  if (process.platform === "win32") return configured ?? windowsShell();
  const candidates = [configured, process.env.SHELL, "/bin/bash", "/bin/sh"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return "/bin/sh";
}

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const allow = sessionEnvAllow();
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !PRIVATE_ENV.includes(k) && !isClientEnv(k, allow)) env[k] = v;
  }
  // The terminal option does not set TERM; programs need it to know what they talk to.
  env.TERM = "xterm-256color";
  env.TERM_PROGRAM = "ptyhub";
  // Without a UTF-8 locale, line editors mangle multibyte input.
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = "C.UTF-8";
  return { ...env, ...extra };
}

export function planLaunch(req: LaunchRequest, nonce: string, sessionId: string): LaunchPlan {
  const cwd = resolveCwd(req.cwd);
  const userEnv = validateEnv(req.env);
  const env = baseEnv({ PTYHUB_SESSION: sessionId, ...userEnv });
  if (req.args !== undefined) {
    if (!req.command)
      throw new AppError(
        "INVALID_ARGUMENT",
        "`args` needs `command` (the executable)",
        'Pass command:"python3", args:["-q"].',
      );
    const exe = Bun.which(req.command, { PATH: env.PATH ?? "", cwd }) ?? req.command;
    return {
      argv: [exe, ...req.args],
      cwd,
      env,
      integration: "none",
      family: null,
      target: [req.command, ...req.args].join(" "),
    };
  }
  const command = req.command?.trim();
  if (process.platform === "win32") return planWindows(command, cwd, env, req.defaultShell, nonce);
  const shell = !command
    ? defaultShellPath(req.defaultShell)
    : /^\S+$/.test(command) && shellFamilyOf(command)
      ? command
      : null;
  if (shell) {
    const path = Bun.which(shell, { PATH: env.PATH ?? "", cwd });
    if (!path)
      throw new AppError(
        "SPAWN_FAILED",
        `shell not found: ${shell}`,
        "Install it, or open a session with another command.",
      );
    const launch = shellLaunch(path, nonce, env);
    return {
      argv: launch.argv,
      cwd,
      env: { ...env, ...launch.env },
      integration: launch.integration,
      family: launch.family,
      target: shell.split("/").pop()!,
      nonceInput: launch.nonceInput,
      verdictChannel: launch.verdictChannel,
    };
  }
  return { argv: ["/bin/sh", "-c", command!], cwd, env, integration: "none", family: null, target: command! };
}

/**
 * Windows: the default session is cmd.exe (COMSPEC, or the configured shell), and a command that is
 * just cmd's or PowerShell's name starts that shell, both with integration (windows-shells.ts):
 * markers for cmd.exe, a prompt function for PowerShell. Any other shell runs as it is (completion
 * by exit and by what the screen shows), and any other command line through `cmd /d /s /c`.
 */
export function planWindows(
  command: string | undefined,
  cwd: string,
  env: Record<string, string>,
  configured: string | undefined,
  nonce: string,
): LaunchPlan {
  const integrated = (shell: string): LaunchPlan | null => {
    const family = windowsShellFamilyOf(shell);
    if (family === null) return null;
    const launch = windowsShellLaunch(shell, family, nonce, env, scriptDir());
    const { argv, integration } = launch;
    return { argv, cwd, env: { ...env, ...launch.env }, integration, family, target: shell };
  };
  if (!command) {
    const shell = defaultShellPath(configured);
    return integrated(shell) ?? { argv: [shell], cwd, env, integration: "none", family: null, target: shell };
  }
  const named = /^\S+$/.test(command) ? integrated(command) : null;
  if (named) return named;
  return {
    argv: [windowsShell(), "/d", "/s", "/c", command],
    cwd,
    env,
    integration: "none",
    family: null,
    target: command,
  };
}
