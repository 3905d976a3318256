/**
 * execvp(3) through bun:ffi: replaces this process with `argv` (same pid, same terminal, same
 * environment as this process was started with). Returns only on failure, with the reason.
 */
import { FFIType, ptr } from "bun:ffi";
import { openLibc } from "../../../util/libc.ts";

const EXEC_SYMBOLS = {
  execvp: { args: [FFIType.cstring, FFIType.ptr], returns: FFIType.i32 },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

export function execvp(argv: string[]): string {
  const libc = openLibc(EXEC_SYMBOLS);
  // The strings must stay referenced until the call: the pointer array holds only their addresses.
  const strings = argv.map((a) => Buffer.from(a + "\0"));
  const pointers = new BigUint64Array(strings.length + 1);
  strings.forEach((s, i) => (pointers[i] = BigInt(ptr(s))));
  libc.symbols.execvp(strings[0]!, ptr(pointers));
  const errno = libc.errno();
  return `${libc.symbols.strerror(errno)} (errno ${errno})`;
}
