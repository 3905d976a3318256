/**
 * Where the C library lives, in the order to try with bun:ffi's dlopen: glibc, then musl (on
 * Alpine its libc is the dynamic loader itself), then a generic name; libSystem on macOS.
 */
export function libcNames(): string[] {
  if (process.platform === "darwin") return ["/usr/lib/libSystem.B.dylib", "libc.dylib"];
  const musl = process.arch === "arm64" ? "aarch64" : "x86_64";
  return ["libc.so.6", `libc.musl-${musl}.so.1`, `/lib/ld-musl-${musl}.so.1`, "libc.so"];
}
