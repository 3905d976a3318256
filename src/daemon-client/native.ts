/**
 * The two system calls the daemon needs that Bun does not wrap, through bun:ffi on libc:
 * flock(2) for its locks (the kernel releases them when the holder dies, so a crashed daemon or
 * starter never leaves a stale lock behind), and the peer's credentials of a Unix socket
 * (SO_PEERCRED on Linux, getpeereid on macOS) so the daemon can refuse another user.
 *
 * When libc cannot be loaded, locks fall back to O_EXCL lock files holding the owner's pid (stale
 * ones, whose pid is dead, are removed), and the peer check reports "unknown"; the 0700 directory
 * and the 0600 socket still keep other users out.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync, constants as fsc } from "node:fs";
import { FFIType, ptr } from "bun:ffi";
import { logger } from "../log.ts";
import { pidAlive } from "../util/process-tree.ts";
import { openLibc } from "../util/libc.ts";
import { tryWindowsLock } from "./windows-lock.ts";

const log = logger("native");

const LOCK_EX = 2;
const LOCK_NB = 4;
const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

interface Libc {
  flock(fd: number, op: number): number;
  peerUid(fd: number): number | null;
  /** The peer's pid at connect time (Linux; null elsewhere). */
  peerPid(fd: number): number | null;
}

// The peer's uid comes from a different call per OS, so each gets its own table; flock is shared.
const FLOCK = { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } as const;
const DARWIN_SYMBOLS = {
  flock: FLOCK,
  getpeereid: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
} as const;
const LINUX_SYMBOLS = {
  flock: FLOCK,
  getsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
} as const;

function darwinLibc(): Libc {
  const lib = openLibc(DARWIN_SYMBOLS);
  return {
    flock: (fd, op) => lib.symbols.flock(fd, op),
    peerUid: (fd) => {
      const uid = new Uint32Array(1);
      const gid = new Uint32Array(1);
      return lib.symbols.getpeereid(fd, ptr(uid), ptr(gid)) === 0 ? uid[0]! : null;
    },
    peerPid: () => null,
  };
}

function linuxLibc(): Libc {
  const lib = openLibc(LINUX_SYMBOLS);
  return {
    flock: (fd, op) => lib.symbols.flock(fd, op),
    peerUid: (fd) => {
      const cred = peerCred(fd);
      return cred ? cred[1]! >>> 0 : null;
    },
    peerPid: (fd) => peerCred(fd)?.[0] ?? null,
  };
  /** struct ucred { pid_t pid; uid_t uid; gid_t gid; } */
  function peerCred(fd: number): Int32Array | null {
    const cred = new Int32Array(3);
    const len = new Uint32Array([12]);
    return lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ptr(cred), ptr(len)) === 0 ? cred : null;
  }
}

let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  // Windows has no libc with flock or peer credentials: windows-lock.ts, and the pipe's DACL (server.ts).
  if (process.platform === "win32") return (libc = null);
  try {
    libc = process.platform === "darwin" ? darwinLibc() : linuxLibc();
  } catch (err) {
    libc = null;
    log.warn("libc unavailable through bun:ffi: falling back to lock files, no peer uid check", err);
  }
  return libc;
}

/** The uid of the process at the other end of a Unix socket, or null when it cannot be known. */
export function peerUid(fd: number | undefined): number | null {
  if (typeof fd !== "number" || fd < 0) return null;
  const lib = loadLibc();
  return lib ? lib.peerUid(fd) : null;
}

/** The pid of the process that connected to a Unix socket, or null when it cannot be known. */
export function peerPid(fd: number | undefined): number | null {
  if (typeof fd !== "number" || fd < 0) return null;
  const lib = loadLibc();
  const pid = lib ? lib.peerPid(fd) : null;
  return pid !== null && pid > 0 ? pid : null;
}

export interface Lock {
  release(): void;
}

/**
 * Takes an exclusive lock on `path` without blocking: the Lock, or null when someone holds it.
 * The lock file itself stays; only the lock on it matters.
 */
export function tryLock(path: string): Lock | null {
  if (process.platform === "win32") return tryWindowsLock(path);
  const lib = loadLibc();
  if (lib) {
    const fd = openSync(path, fsc.O_RDWR | fsc.O_CREAT, 0o600);
    if (lib.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
      closeSync(fd);
      return null;
    }
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        closeSync(fd); // Closing the descriptor releases the flock.
      },
    };
  }
  return tryLockFile(path + ".pid");
}

/** Fallback: a lock file created with O_EXCL that holds our pid; a dead owner's file is stale. */
function tryLockFile(path: string): Lock | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          try {
            unlinkSync(path);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let owner = 0;
      try {
        owner = Number(readFileSync(path, "utf8").trim());
      } catch {
        continue;
      }
      if (owner > 0 && pidAlive(owner)) return null;
      try {
        unlinkSync(path);
      } catch {
        // Someone else removed it first.
      }
    }
  }
  return null;
}
