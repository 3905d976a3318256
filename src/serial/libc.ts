/**
 * The few libc calls a serial port needs that Node's fs does not offer (flock, ioctl, tcflush),
 * loaded once through bun:ffi, with errno turned into a named error. Opening, writing and closing
 * use node:fs; reading uses Bun's own event loop (see port.ts).
 */
import { dlopen, FFIType, read } from "bun:ffi";
import { existsSync, readdirSync } from "node:fs";
import { constants as osConstants } from "node:os";
import type { SerialOsConstants } from "./constants.ts";

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

/** Where musl keeps libc: its dynamic loader (e.g. /lib/ld-musl-x86_64.so.1). */
function libcCandidates(c: SerialOsConstants): string[] {
  const names = [c.libc];
  if (process.platform === "linux" && existsSync("/lib")) {
    for (const f of readdirSync("/lib")) if (/^ld-musl-.*\.so\.1$/.test(f)) names.push(`/lib/${f}`);
  }
  return names;
}

let loaded: Libc | null = null;

export function libc(c: SerialOsConstants): Libc {
  if (loaded) return loaded;
  let lastError: unknown = null;
  for (const name of libcCandidates(c)) {
    try {
      loaded = bind(name, c);
      return loaded;
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new Error("no libc found");
}

function bind(name: string, c: SerialOsConstants): Libc {
  const sym = dlopen(name, SYMBOLS).symbols;
  // errno's accessor differs by OS (__errno_location, __error): its own dlopen keeps both typed.
  const errnoFn = dlopen(name, { [c.errnoFn]: { args: [], returns: FFIType.ptr } }).symbols[c.errnoFn];
  const errnoPtr = (): number => {
    const p = errnoFn?.();
    return p ? read.i32(p, 0) : 0;
  };
  const check = (call: string, rc: unknown): void => {
    if (rc === -1) {
      const e = errnoPtr();
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
