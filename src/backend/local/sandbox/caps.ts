/**
 * The capabilities a sandboxed session gives up before it execs (capabilities(7)):
 *
 * - Ambient capabilities, which `unshare --keep-caps` (userns.ts) gave the launcher so it could
 *   mount in its user namespace: the session's program must not inherit them.
 * - From the bounding set, what would let a session running as root get around the hidden
 *   directories or read another process's secrets: CAP_DAC_READ_SEARCH opens a file by handle
 *   (open_by_handle_at(2)), which walks no path and so no mount; CAP_SYS_ADMIN would let it enter
 *   another mount namespace (setns(2)); CAP_PERFMON reads /proc/PID/environ and maps of processes
 *   outside the session despite Landlock's ptrace restriction (measured on Linux 6.18: with it, a
 *   root session read `serve --http`'s PTYHUB_HTTP_TOKEN; without it, EACCES); CAP_SYS_PTRACE, as
 *   no session needs to trace what it did not start. Dropping needs CAP_SETPCAP: a launcher
 *   without it (not root, no user namespace) has none of these to lose.
 *
 * Constants from <linux/prctl.h> and <linux/capability.h>.
 */
import { FFIType } from "bun:ffi";
import { openLibc } from "../../../util/libc.ts";

const PR_CAPBSET_DROP = 24;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4;
const CAP_DAC_READ_SEARCH = 2;
const CAP_SYS_ADMIN = 21;
const CAP_SYS_PTRACE = 19;
const CAP_PERFMON = 38;
const DROPPED = [CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_PERFMON];
const EPERM = 1;
const EINVAL = 22;

const CAPS_SYMBOLS = {
  prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

/** Throws with the reason when a capability the launcher holds cannot be given up. */
export function dropCapabilities(): void {
  const lib = openLibc(CAPS_SYMBOLS);
  const why = () => {
    const errno = lib.errno();
    return `${lib.symbols.strerror(errno)} (errno ${errno})`;
  };
  if (lib.symbols.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) !== 0) {
    throw new Error(`prctl(PR_CAP_AMBIENT_CLEAR_ALL): ${why()}`);
  }
  for (const cap of DROPPED) {
    if (lib.symbols.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) === 0) continue;
    // EPERM: no CAP_SETPCAP, so none of them after exec (above); EINVAL: a kernel older than the cap.
    const errno = lib.errno();
    if (errno !== EPERM && errno !== EINVAL) throw new Error(`prctl(PR_CAPBSET_DROP, ${cap}): ${why()}`);
  }
}
