/**
 * Whether term_open's `sandbox` can confine a session's writes here: Landlock on Linux (its ABI
 * version), sandbox-exec on macOS. Without it a sandboxed term_open is refused, not run unconfined.
 */
import { existsSync } from "node:fs";
import { landlockAbi } from "../backend/local/sandbox/landlock.ts";
import { SANDBOX_EXEC } from "../backend/local/sandbox/macos.ts";
import { type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("sandbox");

export async function checkSandbox(): Promise<Finding[]> {
  switch (process.platform) {
    case "linux": {
      const abi = landlockAbi();
      return [
        abi >= 1
          ? is.ok("Landlock", `ABI version ${abi}: sandboxed sessions can be confined`)
          : is.warn(
              "Landlock",
              "this kernel offers no Landlock (too old, or not in its LSM list), so term_open's sandbox is refused",
              "Only needed for sandboxed sessions: a kernel ≥ 5.13 with lsm=…,landlock enables it.",
            ),
      ];
    }
    case "darwin":
      return [
        existsSync(SANDBOX_EXEC)
          ? is.ok(SANDBOX_EXEC, "present: sandboxed sessions can be confined")
          : is.warn(SANDBOX_EXEC, "missing, so term_open's sandbox is refused", "Only needed for sandboxed sessions."),
      ];
    default:
      return [
        is.warn(
          process.platform,
          "term_open's sandbox is not available on this platform",
          "Only needed for sandboxed sessions: run them on Linux or macOS.",
        ),
      ];
  }
}
