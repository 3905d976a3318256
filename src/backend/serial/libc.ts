/**
 * The few libc calls a serial port needs that Node's fs does not offer (flock, ioctl, tcflush),
 * loaded once through bun:ffi, with errno turned into a named error. Opening, writing and closing
 * use node:fs; reading uses Bun's own event loop (see port.ts).
 */
import { FFIType } from "bun:ffi";
import { constants as osConstants } from "node:os";
import { openLibc } from "../../util/libc.ts";

/** A failed libc call, with errno's name (EAGAIN, ENOTTY, …). */
export class LibcError extends Error {
  constructor(
    readonly call: string,
    readonly errno: number,
    readonly code: string,
  ) {
    super(`${call} failed: ${code} (errno ${errno})`);
  }
}

const ERRNO_NAMES = new Map<number, string>(Object.entries(osConstants.errno).map(([name, n]) => [n, name]));

export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}

const SYMBOLS = {
  flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  // ioctl is variadic; every request used here takes a pointer (or nothing), which x86_64 and
  // Linux arm64 pass in the same register as a fixed argument. Apple arm64 passes variadic
  // arguments on the stack: untested there (see constants.ts).
  ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
  tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  tcflush: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
} as const;

export interface Libc {
  flock(fd: number, op: number): void;
  /** `arg` is the buffer the request reads or fills; null for requests without one. */
  ioctl(fd: number, request: number, arg: Uint8Array | null, name: string): void;
  tcgetattr(fd: number, buf: Uint8Array): void;
  tcsetattr(fd: number, buf: Uint8Array): void;
  tcflush(fd: number, queue: number): void;
}

let loaded: Libc | null = null;

/** Throws when libc cannot be loaded (the error names the library names tried). */
export function libc(): Libc {
  loaded ??= bind();
  return loaded;
}

function bind(): Libc {
  const lib = openLibc(SYMBOLS);
  const sym = lib.symbols;
  const check = (call: string, rc: unknown): void => {
    if (rc === -1) {
      const e = lib.errno();
      throw new LibcError(call, e, errnoName(e));
    }
  };
  return {
    flock: (fd, op) => check("flock", sym.flock(fd, op)),
    ioctl: (fd, request, arg, label) => check(`ioctl(${label})`, sym.ioctl(fd, request, arg)),
    tcgetattr: (fd, buf) => check("tcgetattr", sym.tcgetattr(fd, buf)),
    tcsetattr: (fd, buf) => check("tcsetattr", sym.tcsetattr(fd, 0, buf)),
    tcflush: (fd, queue) => check("tcflush", sym.tcflush(fd, queue)),
  };
}
