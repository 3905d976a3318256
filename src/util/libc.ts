/**
 * The one way into the C library through bun:ffi. Each caller keeps its own symbol table (the
 * calls it needs, next to the code that uses them); this module only finds libc under its
 * per-platform names and reads errno, which every C library keeps behind a differently named
 * accessor. bun:ffi's dlopen fails when any symbol is missing, so a name whose library lacks one
 * is skipped like a name that does not exist.
 */
import { dlopen, FFIType, read, type FFIFunction, type Library, type Pointer } from "bun:ffi";
import { libcNames } from "./libc-names.ts";

export interface Libc<Fns extends Record<string, FFIFunction>> {
  /** The caller's symbols, typed by bun:ffi from the table passed to openLibc. */
  symbols: Library<Fns>["symbols"];
  /** The calling thread's errno: read it right after the failed call, before any other. */
  errno(): number;
  /** The name that opened, for messages. */
  name: string;
  close(): void;
}

/**
 * errno is thread-local, so libc exports a function returning its address: glibc and musl under
 * one name, macOS under another. One typed table per platform, so neither call needs a cast.
 */
function errnoReader(name: string): { read(): number; close(): void } {
  // Bun hands pointers back as numbers; its types also allow bigint, which would not be one.
  const at = (address: Pointer | bigint | null) => (typeof address === "number" && address ? read.i32(address, 0) : 0);
  if (process.platform === "darwin") {
    const lib = dlopen(name, { __error: { args: [], returns: FFIType.ptr } });
    return { read: () => at(lib.symbols.__error()), close: () => lib.close() };
  }
  const lib = dlopen(name, { __errno_location: { args: [], returns: FFIType.ptr } });
  return { read: () => at(lib.symbols.__errno_location()), close: () => lib.close() };
}

/**
 * Opens libc with `symbols`, trying libcNames() in order (glibc, musl, macOS); throws naming the
 * last failure when none opens. Callers that call often keep the result rather than reopen.
 */
export function openLibc<Fns extends Record<string, FFIFunction>>(symbols: Fns): Libc<Fns> {
  let lastError: unknown;
  for (const name of libcNames()) {
    try {
      const lib = dlopen(name, symbols);
      let errno: ReturnType<typeof errnoReader>;
      try {
        errno = errnoReader(name);
      } catch (err) {
        lib.close();
        throw err;
      }
      return {
        symbols: lib.symbols,
        errno: errno.read,
        name,
        close() {
          errno.close();
          lib.close();
        },
      };
    } catch (err) {
      lastError = err;
    }
  }
  const why = lastError instanceof Error ? lastError.message : "not found";
  throw new Error(`cannot load the C library (tried ${libcNames().join(", ")}): ${why}`);
}
