/**
 * The start and daemon locks on Windows, where there is no flock: the lock file opened through
 * kernel32 `CreateFileW` with share mode 0, so no other process can open it while we hold the
 * handle, and Windows closes the handle when its process dies, however it dies. A pid lock file
 * is no substitute there: Windows (and Wine far more) hands a dead process's pid to the next one
 * at once, so a stale lock looks held.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { wide } from "../util/kernel32.ts";

const SYMBOLS = {
  CreateFileW: {
    args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.u64],
    returns: FFIType.u64,
  },
  CloseHandle: { args: [FFIType.u64], returns: FFIType.i32 },
  GetLastError: { args: [], returns: FFIType.u32 },
} as const;

const GENERIC_READ = 0x80000000;
const GENERIC_WRITE = 0x40000000;
/** No sharing: the whole point of the lock. */
const SHARE_NONE = 0;
const OPEN_ALWAYS = 4;
const FILE_ATTRIBUTE_NORMAL = 0x80;
const INVALID_HANDLE_VALUE = 0xffffffffffffffffn;
/** Another process has the file open: the lock is held. */
const ERROR_SHARING_VIOLATION = 32;

let k: ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"] | null = null;

/** An exclusive handle on `path`'s file, or null when another process holds it. */
export function tryWindowsLock(path: string): { release(): void } | null {
  k ??= dlopen("kernel32.dll", SYMBOLS).symbols;
  const lib = k;
  const name = wide(path);
  const access = (GENERIC_READ | GENERIC_WRITE) >>> 0;
  const handle = BigInt(lib.CreateFileW(ptr(name), access, SHARE_NONE, null, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, 0));
  if (handle === INVALID_HANDLE_VALUE) {
    const error = lib.GetLastError();
    if (error === ERROR_SHARING_VIOLATION) return null;
    throw new Error(`cannot open the lock file ${path} (Windows error ${error})`);
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      lib.CloseHandle(handle);
    },
  };
}
