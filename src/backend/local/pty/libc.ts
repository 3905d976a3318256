/**
 * The C calls an owned PTY needs that Bun does not wrap, through bun:ffi. Every one of them has
 * a fixed argument list except ioctl, which is variadic: declared here with its one pointer
 * argument, which is how x86_64 and Linux arm64 pass it (Apple arm64 passes variadic arguments
 * on the stack, untested there).
 */
import { FFIType, ptr, CString, type Pointer } from "bun:ffi";
import { AppError } from "../../../api/errors.ts";
import { openLibc, type Libc } from "../../../util/libc.ts";

/** poll(2)'s "data to read" event, the same on Linux and macOS. */
const POLLIN = 0x1;

const SYMBOLS = {
  grantpt: { args: [FFIType.i32], returns: FFIType.i32 },
  unlockpt: { args: [FFIType.i32], returns: FFIType.i32 },
  ptsname_r: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
  ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
  tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  tcgetpgrp: { args: [FFIType.i32], returns: FFIType.i32 },
  poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
  setsid: { args: [], returns: FFIType.i32 },
  execvp: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  signal: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.ptr },
} as const;

type Lib = Libc<typeof SYMBOLS>;

let lib: Lib | undefined;

function load(): Lib {
  if (lib) return lib;
  try {
    lib = openLibc(SYMBOLS);
    return lib;
  } catch (err) {
    throw new AppError(
      "SPAWN_FAILED",
      `${(err as Error).message} (local terminals need it)`,
      "Local sessions need libc through bun:ffi; use an ssh session, or report your platform.",
    );
  }
}

/** A C string buffer (NUL-terminated) for FFI arguments. */
export function cString(s: string): Buffer {
  return Buffer.from(s + "\0", "utf8");
}

/** Throws SPAWN_FAILED naming the call and errno when a libc call returned -1. */
function check(l: Lib, call: string, rc: number): number {
  if (rc !== -1) return rc;
  const code = l.errno();
  throw new AppError(
    "SPAWN_FAILED",
    `${call} failed (errno ${code})`,
    "The system could not set up a terminal; check /dev/ptmx and the limit on ptys (sysctl kernel.pty.max).",
  );
}

export const libc = {
  grantpt(fd: number): void {
    const l = load();
    check(l, "grantpt", l.symbols.grantpt(fd));
  },
  unlockpt(fd: number): void {
    const l = load();
    check(l, "unlockpt", l.symbols.unlockpt(fd));
  },
  ptsname(fd: number): string {
    const l = load();
    const buf = Buffer.alloc(256);
    const rc = l.symbols.ptsname_r(fd, ptr(buf), buf.length);
    // ptsname_r returns the error number itself rather than setting errno.
    if (rc !== 0) {
      const hint = "The system could not name the terminal's slave side; check /dev/pts.";
      throw new AppError("SPAWN_FAILED", `ptsname_r failed (error ${rc})`, hint);
    }
    return new CString(ptr(buf)).toString();
  },
  /** ioctl with a pointer argument (or null); returns -1 on failure like the C call. */
  ioctl(fd: number, request: number, arg: Pointer | null): number {
    return load().symbols.ioctl(fd, request, arg);
  },
  /** Fills `termios` (sized for the platform); false when fd is not (or no longer) a terminal. */
  tcgetattr(fd: number, termios: Uint8Array): boolean {
    return load().symbols.tcgetattr(fd, ptr(termios)) === 0;
  },
  /**
   * Whether `fd` has input to read now (poll, no wait). On a Linux tty this first runs the
   * pending flip-buffer work (n_tty_poll), so bytes the other side wrote before the call count.
   */
  readableNow(fd: number): boolean {
    // struct pollfd: int fd; short events; short revents.
    const pollfd = new ArrayBuffer(8);
    new Int32Array(pollfd, 0, 1)[0] = fd;
    const shorts = new Int16Array(pollfd, 4, 2);
    shorts[0] = POLLIN;
    return load().symbols.poll(ptr(pollfd), 1, 0) > 0 && ((shorts[1] ?? 0) & POLLIN) !== 0;
  },
  /** The terminal's foreground process group, or null. */
  tcgetpgrp(fd: number): number | null {
    const pgrp = load().symbols.tcgetpgrp(fd);
    return pgrp > 0 ? pgrp : null;
  },
  setsid(): number {
    const l = load();
    return check(l, "setsid", l.symbols.setsid());
  },
  /** Restores a signal's default disposition (SIG_DFL is the null handler). */
  defaultSignal(signo: number): void {
    load().symbols.signal(signo, null);
  },
  /** Replaces this process with `argv` (searched on PATH); returns only on failure, with errno. */
  execvp(argv: string[]): number {
    const l = load();
    const strings = argv.map(cString);
    const table = new BigUint64Array(argv.length + 1);
    strings.forEach((s, i) => (table[i] = BigInt(ptr(s))));
    l.symbols.execvp(ptr(strings[0]!), ptr(table));
    return l.errno();
  },
  errno(): number {
    return load().errno();
  },
};
