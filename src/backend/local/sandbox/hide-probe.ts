/**
 * Whether this machine lets a sandboxed session's launcher hide directories: asked once per
 * process by running the launcher itself on a throwaway directory (`true` as the program), so the
 * answer covers every step a session takes (user namespace, mounts, capabilities, Landlock, exec).
 * What can forbid it: no unshare(1) for a user that is not root; unprivileged user namespaces
 * turned off (sysctl kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0), or allowed
 * without capabilities (Ubuntu ≥ 23.10: kernel.apparmor_restrict_unprivileged_userns=1); a
 * container without CAP_SYS_ADMIN. Then sandboxed sessions are refused, never silently weaker.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A launcher on a loaded 2-core machine starts in well under this (two Bun starts with unshare). */
const PROBE_TIMEOUT_MS = 20_000;

export interface ProbeResult {
  ok: boolean;
  /** What the launcher said when it could not (its stderr), for the error's message. */
  why: string;
}

let cached: ProbeResult | null = null;

/** `argvFor(dir)`: the launcher's argv hiding `dir` and running `true`. */
export function probeHiding(argvFor: (dir: string) => string[]): ProbeResult {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), "ptyhub-hide-probe-"));
  try {
    const r = Bun.spawnSync(argvFor(dir), {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      timeout: PROBE_TIMEOUT_MS,
    });
    const why = r.stderr.toString().trim() || `the launcher exited with ${r.exitCode ?? r.signalCode}`;
    cached = r.exitCode === 0 ? { ok: true, why: "" } : { ok: false, why };
  } catch (err) {
    cached = { ok: false, why: err instanceof Error ? err.message : String(err) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return cached;
}
