/**
 * The command an MCP client should run to start this ptyhub. Registering the absolute path of
 * what is running now means the client finds it without relying on its PATH (GUI apps such as
 * Claude Desktop often start with a minimal PATH).
 */
import { resolve } from "node:path";
import type { LaunchCommand } from "./config-edit.ts";
import { registrableBunPath } from "./bun-path.ts";

export interface RunningProgram {
  /** Whether this process is a `bun build --compile` binary. */
  compiled: boolean;
  /** The binary when compiled; the bun executable when running from source. */
  execPath: string;
  /** Absolute path of src/cli.ts, the entry point when running from source. */
  cliPath: string;
  /** Set by the npm launcher (bin/ptyhub.js) to its own path when it started us. */
  npmLauncherPath: string | undefined;
}

/**
 * `npx ptyhub` and `bunx ptyhub` run from throwaway directories (npm's `_npx` cache, bunx's temp
 * dirs) that may be cleaned at any time, so a registration from there names the package runner
 * rather than a path that will vanish.
 */
const EPHEMERAL_RUNNERS: ReadonlyArray<{ pattern: RegExp; launch: LaunchCommand }> = [
  { pattern: /[\\/]_npx[\\/]/, launch: { command: "npx", args: ["-y", "ptyhub"] } },
  { pattern: /[\\/]bunx-[^\\/]*[\\/]/, launch: { command: "bunx", args: ["ptyhub"] } },
];

function ephemeralRunner(path: string | undefined): LaunchCommand | undefined {
  if (!path) return undefined;
  return EPHEMERAL_RUNNERS.find((runner) => runner.pattern.test(path))?.launch;
}

export function launchCommandFor(program: RunningProgram): LaunchCommand {
  const runner =
    ephemeralRunner(program.npmLauncherPath) ?? (program.compiled ? undefined : ephemeralRunner(program.cliPath));
  if (runner) return { command: runner.command, args: [...runner.args] };
  if (program.compiled) return { command: program.execPath, args: [] };
  // From source: the absolute bun executable, so the client does not depend on bun being on PATH.
  return { command: program.execPath, args: [program.cliPath] };
}

export function currentProgram(): RunningProgram {
  return {
    compiled: Bun.isStandaloneExecutable,
    // Not npm's `…/bun.exe` on Linux and macOS: the `bun` on PATH that runs it (bun-path.ts).
    execPath: Bun.isStandaloneExecutable ? process.execPath : registrableBunPath(process.execPath),
    cliPath: resolve(import.meta.dir, "..", "cli.ts"),
    npmLauncherPath: process.env.PTYHUB_NPM_LAUNCHER || undefined,
  };
}

/** What a project's shared config (e.g. .mcp.json, committed) runs: found on each machine's PATH. */
const PORTABLE_LAUNCH: LaunchCommand = { command: "ptyhub", args: [] };

/**
 * The command for a config meant to be committed and used on other machines: never this machine's
 * absolute paths. A package runner (`npx -y ptyhub`) works anywhere as it is; anything else
 * becomes plain `ptyhub`, which each machine finds on its PATH.
 */
export function portableLaunch(launch: LaunchCommand): LaunchCommand {
  const runner = EPHEMERAL_RUNNERS.find((r) => r.launch.command === launch.command);
  return runner ? { command: launch.command, args: [...launch.args] } : { ...PORTABLE_LAUNCH, args: [] };
}
