/**
 * `ptyhub __pty-exec -- PROGRAM ARGS…` (hidden): become a session leader, take stdin (the PTY's
 * slave) as controlling terminal, and exec the program in this same process. Used where
 * util-linux `setsid --ctty` is not available (macOS, busybox).
 */
import { constants } from "node:os";
import { ptyConstants } from "./constants.ts";
import { libc } from "./libc.ts";

/** Bun ignores these; ignored signals survive exec, and a shell expects them at their defaults. */
const RESET_SIGNALS = ["SIGPIPE", "SIGXFSZ"] as const;

export function runPtyExec(args: string[]): number {
  const argv = args[0] === "--" ? args.slice(1) : args;
  if (argv.length === 0) {
    process.stderr.write("ptyhub __pty-exec: missing program\n");
    return 2;
  }
  libc.setsid();
  if (libc.ioctl(0, ptyConstants().TIOCSCTTY, null) === -1) {
    process.stderr.write(`ptyhub __pty-exec: stdin is not a terminal we can control (errno ${libc.errno()})\n`);
    return 1;
  }
  for (const name of RESET_SIGNALS) libc.defaultSignal(constants.signals[name]);
  const errno = libc.execvp(argv);
  process.stderr.write(`ptyhub: cannot run ${argv[0]} (errno ${errno})\n`);
  return 127;
}
