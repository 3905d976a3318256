/**
 * Sandboxed sessions (term_open `sandbox`): the session's program is confined by the OS before
 * it starts. `read-only` may write only in its private temp dir; `workspace` also beneath its
 * cwd. Reads are allowed everywhere, and the terminal devices stay writable so the shell works.
 * Linux: the launcher verb (launcher.ts) with Landlock; macOS: sandbox-exec with a profile.
 * Where neither can confine, opening fails with SPAWN_FAILED: never a silently unconfined shell.
 */
import { realpathSync } from "node:fs";
import { AppError } from "../../../api/errors.ts";
import { selfCommand } from "../../../self-command.ts";
import { landlockAbi } from "./landlock.ts";
import { makePrivateTmp } from "./tmp.ts";
import { macosProfile, SANDBOX_EXEC } from "./macos.ts";
import type { LaunchPlan } from "../launch.ts";
import type { SandboxMode } from "../../../api/sandbox-modes.ts";

/** Devices a shell writes to: the bit bucket and its terminal (the pty, also reached via /dev/tty). */
export const TERMINAL_DEVICES = ["/dev/null", "/dev/tty", "/dev/pts"];
/** The hidden CLI verb of the launcher step. */
export const LAUNCHER_VERB = "__sandbox";

/**
 * The argv that runs `argv` confined to writing beneath `writable` (and the terminal devices).
 * Composes with other launcher steps: it only wraps the argv it is given.
 */
export function sandboxArgv(mode: Exclude<SandboxMode, "none">, writable: string[], argv: string[]): string[] {
  const paths = [...writable, ...TERMINAL_DEVICES];
  if (process.platform === "darwin") return [SANDBOX_EXEC, "-p", macosProfile(paths), ...argv];
  return [...selfCommand(), LAUNCHER_VERB, mode, ...paths.flatMap((p) => ["--write", p]), "--", ...argv];
}

/** Throws SPAWN_FAILED, with what to do, when this system cannot confine a session. */
export function assertCanConfine(): void {
  if (process.platform === "darwin") return;
  if (process.platform !== "linux") {
    throw new AppError(
      "SPAWN_FAILED",
      `sandboxed sessions are not available on ${process.platform}`,
      'Open the session with sandbox "none" (unconfined) if the human agrees, or run ptyhub on Linux or macOS.',
      false,
    );
  }
  if (landlockAbi() < 1) {
    throw new AppError(
      "SPAWN_FAILED",
      "this Linux kernel does not offer Landlock, so the session cannot be confined (nothing was started)",
      'Landlock needs Linux ≥ 5.13 with "landlock" in the lsm= boot parameter (see /sys/kernel/security/lsm). ' +
        'Until then open with sandbox "none" only if the human agrees.',
      false,
    );
  }
}

export interface ConfinedLaunch {
  argv: string[];
  /** Variables the confined program gets: its private TMPDIR. */
  env: Record<string, string>;
}

/** Confines a local launch: its argv wrapped, a private temp dir made and handed to it. */
export function confineLaunch(mode: Exclude<SandboxMode, "none">, cwd: string, argv: string[]): ConfinedLaunch {
  assertCanConfine();
  const tmp = makePrivateTmp();
  // realpath: Landlock and sandbox-exec judge the resolved path (macOS's /var is /private/var).
  const writable = mode === "workspace" ? [realpathSync(cwd), tmp] : [tmp];
  return { argv: sandboxArgv(mode, writable, argv), env: { TMPDIR: tmp, PTYHUB_SANDBOX: mode } };
}

/** A launch plan confined as term_open's `sandbox` asks (unchanged for "none" or absent). */
export function withSandbox(plan: LaunchPlan, mode: SandboxMode | undefined): LaunchPlan {
  if (mode === undefined || mode === "none") return plan;
  const confined = confineLaunch(mode, plan.cwd, plan.argv);
  return { ...plan, argv: confined.argv, env: { ...plan.env, ...confined.env } };
}
