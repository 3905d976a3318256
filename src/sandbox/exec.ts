/**
 * execvp(3) through bun:ffi: replaces this process with `argv` (same pid, same terminal, same
 * environment as this process was started with). Returns only on failure, with the reason.
 */
import { dlopen, FFIType, ptr, read } from "bun:ffi";

const EXEC_SYMBOLS = {
  execvp: { args: [FFIType.cstring, FFIType.ptr], returns: FFIType.i32 },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

/** libc's execvp, strerror and errno location (glibc: __errno_location; macOS: __error). */
function load() {
  if (process.platform === "darwin") {
    const lib = dlopen("/usr/lib/libSystem.B.dylib", { ...EXEC_SYMBOLS, __error: { args: [], returns: FFIType.ptr } });
    return { ...lib.symbols, errnoLocation: lib.symbols.__error };
  }
  const lib = dlopen("libc.so.6", { ...EXEC_SYMBOLS, __errno_location: { args: [], returns: FFIType.ptr } });
  return { ...lib.symbols, errnoLocation: lib.symbols.__errno_location };
}

export function execvp(argv: string[]): string {
  const libc = load();
  // The strings must stay referenced until the call: the pointer array holds only their addresses.
  const strings = argv.map((a) => Buffer.from(a + "\0"));
  const pointers = new BigUint64Array(strings.length + 1);
  strings.forEach((s, i) => (pointers[i] = BigInt(ptr(s))));
  libc.execvp(strings[0]!, ptr(pointers));
  const loc = libc.errnoLocation();
  const errno = loc ? read.i32(loc, 0) : 0;
  return `${libc.strerror(errno)} (errno ${errno})`;
}
