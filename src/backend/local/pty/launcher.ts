/**
 * Giving the child the PTY's slave as its controlling terminal. Bun.spawn cannot call setsid()
 * and ioctl(TIOCSCTTY) between fork and exec, so a small step runs first and execs the program
 * (same pid): util-linux `setsid --ctty` where it exists (~2 ms), else ptyhub's own binary
 * through the hidden `__pty-exec` verb (~12 ms: a Bun start). The slave is the step's stdin.
 */
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { selfCommand } from "../../../self-command.ts";

/** The hidden CLI verb that does setsid + TIOCSCTTY + execvp (see exec-verb.ts). */
export const PTY_EXEC_VERB = "__pty-exec";

export type CttyLauncher = "setsid" | "self";

let utilLinuxSetsid: string | null | undefined;

/** util-linux's setsid (it has --ctty); busybox's applet does not, and macOS has none. */
function findUtilLinuxSetsid(): string | null {
  if (utilLinuxSetsid !== undefined) return utilLinuxSetsid;
  utilLinuxSetsid = null;
  if (process.platform !== "linux") return null;
  const path = Bun.which("setsid", { PATH: "/usr/bin:/bin:/usr/sbin:/sbin" });
  try {
    if (path && basename(realpathSync(path)) === "setsid") utilLinuxSetsid = path;
  } catch {
    // A dangling link: use our own step.
  }
  return utilLinuxSetsid;
}

/**
 * The argv that runs `argv` as a session leader with the slave (its stdin) as controlling
 * terminal. The one place a launch argv is built: further wrapping steps compose here.
 */
export function controllingTtyArgv(argv: string[], launcher?: CttyLauncher): string[] {
  const setsid = launcher === "self" ? null : findUtilLinuxSetsid();
  if (setsid) return [setsid, "--ctty", "--", ...argv];
  return [...selfCommand(), PTY_EXEC_VERB, "--", ...argv];
}
