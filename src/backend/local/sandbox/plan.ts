/**
 * Sandboxed sessions (term_open `sandbox`): the session's program is confined by the OS before
 * it starts. `read-only` may write only in its private temp dir; `workspace` also beneath its
 * cwd. Reads are allowed everywhere, and the terminal devices stay writable so the shell works.
 * Linux: the launcher verb (launcher.ts) with Landlock, after hiding ptyhub's own directories
 * (hidden-paths.ts) in a mount namespace; macOS: sandbox-exec with a profile (which hides nothing).
 * Where Linux cannot confine or hide, opening fails with SPAWN_FAILED: never a silently weaker one.
 */
import { realpathSync, rmSync } from "node:fs";
import { AppError } from "../../../api/errors.ts";
import { selfCommand } from "../../../self-command.ts";
import { landlockAbi } from "./landlock.ts";
import { makePrivateTmp } from "./tmp.ts";
import { hiddenDirs } from "./hidden-paths.ts";
import { probeHiding } from "./hide-probe.ts";
import { needsUserNamespace, UNSHARE, userNamespacePrefix } from "./userns.ts";
import { reinstallDir, scriptDir } from "../../../terminal/shell-integration.ts";
import { macosProfile, SANDBOX_EXEC } from "./macos.ts";
import type { LaunchPlan } from "../launch.ts";
import type { SandboxMode } from "../../../api/sandbox-modes.ts";

/** Devices a shell writes to: the bit bucket and its terminal (the pty, also reached via /dev/tty). */
export const TERMINAL_DEVICES = ["/dev/null", "/dev/tty", "/dev/pts"];
/** The hidden CLI verb of the launcher step. */
export const LAUNCHER_VERB = "__sandbox";

/** The program the probe runs in place of a session's: it does nothing and exits 0. */
const PROBE_PROGRAM = "true";

export interface SandboxPaths {
  /** Where the program may write (resolved), besides the terminal devices. */
  writable: string[];
  /** Directories it must not see (hidden-paths.ts); Linux only. */
  hidden: string[];
  /** Directories beneath a hidden one it still sees (read-only): its shell-integration scripts. */
  shown: string[];
}

/**
 * The argv that runs `argv` confined to writing beneath `writable` (and the terminal devices),
 * with `hidden` out of its sight. Composes with other launcher steps: it only wraps the argv it
 * is given. Not root, the Linux launcher runs in a user namespace of its own (userns.ts).
 */
export function sandboxArgv(mode: Exclude<SandboxMode, "none">, paths: SandboxPaths, argv: string[]): string[] {
  const writable = [...paths.writable, ...TERMINAL_DEVICES];
  if (process.platform === "darwin") return [SANDBOX_EXEC, "-p", macosProfile(writable), ...argv];
  const flags = [
    ...writable.flatMap((p) => ["--write", p]),
    ...paths.hidden.flatMap((p) => ["--hide", p]),
    ...paths.shown.flatMap((p) => ["--show", p]),
  ];
  const prefix = needsUserNamespace() ? (userNamespacePrefix() ?? []) : [];
  return [...prefix, ...selfCommand(), LAUNCHER_VERB, mode, ...flags, "--", ...argv];
}

/** What term_open answers when the sandbox cannot hide ptyhub's directories on this machine. */
function cannotHide(why: string): AppError {
  return new AppError(
    "SPAWN_FAILED",
    `the sandbox cannot hide ptyhub's socket, token and settings from the session here, so it is not ` +
      `started (a session that reached them could ask ptyhub for an unconfined one): ${why}`,
    "Hiding needs a mount namespace: run ptyhub as root, or as a user allowed unprivileged user namespaces " +
      "with util-linux unshare ≥ 2.38 installed (Ubuntu ≥ 23.10 restricts them: sysctl " +
      "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile granting userns to unshare). " +
      'Else open with sandbox "none" only if the human agrees.',
    false,
  );
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
  if (needsUserNamespace() && !userNamespacePrefix()) throw cannotHide(`${UNSHARE}(1) is not installed`);
  const probe = probeHiding((dir) =>
    sandboxArgv("read-only", { writable: [], hidden: [dir], shown: [] }, [PROBE_PROGRAM]),
  );
  if (!probe.ok) throw cannotHide(probe.why);
}

export interface ConfinedLaunch {
  argv: string[];
  /** Variables the confined program gets: its private TMPDIR. */
  env: Record<string, string>;
}

/** What confineLaunch confines: session `sessionId`'s program `argv`, started in `cwd` with `env`. */
export interface LaunchToConfine {
  sessionId: string;
  cwd: string;
  argv: string[];
  env: Record<string, string>;
}

/**
 * Confines a local launch: its argv wrapped, a private temp dir made and handed to it, ptyhub's
 * directories hidden but for the scripts its shell sources.
 */
export function confineLaunch(mode: Exclude<SandboxMode, "none">, launch: LaunchToConfine): ConfinedLaunch {
  assertCanConfine();
  const tmp = makePrivateTmp();
  // realpath: Landlock and sandbox-exec judge the resolved path (macOS's /var is /private/var).
  const writable = mode === "workspace" ? [realpathSync(launch.cwd), tmp] : [tmp];
  const paths: SandboxPaths = { writable, hidden: [], shown: [] };
  if (process.platform === "linux") {
    try {
      paths.hidden = hiddenDirs(writable, launch.env);
    } catch (err) {
      // Refused: nothing will start, so nothing would ever mark the temp dir for pruning (tmp.ts).
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
    paths.shown = [scriptDir(), reinstallDir(launch.sessionId)];
  }
  return { argv: sandboxArgv(mode, paths, launch.argv), env: { TMPDIR: tmp, PTYHUB_SANDBOX: mode } };
}

/** Session `sessionId`'s launch plan confined as term_open's `sandbox` asks (unchanged for "none" or absent). */
export function withSandbox(plan: LaunchPlan, mode: SandboxMode | undefined, sessionId: string): LaunchPlan {
  if (mode === undefined || mode === "none") return plan;
  const confined = confineLaunch(mode, { sessionId, cwd: plan.cwd, argv: plan.argv, env: plan.env });
  return { ...plan, argv: confined.argv, env: { ...plan.env, ...confined.env } };
}
