/**
 * Hides directories from a sandboxed session with its own mount namespace (mount_namespaces(7)):
 * an empty read-only tmpfs is mounted over each, so no path spelling (symlinks, `..`, bind
 * targets of the same mount) reaches what is beneath. The namespace is the launcher's alone, made
 * with unshare(CLONE_NEWNS) on the thread that then execs (CLONE_NEWNS unshares the calling
 * thread's fs context only, which is why it works in multi-threaded Bun; CLONE_NEWUSER would not,
 * see userns.ts). Mount events from the host still propagate in (MS_SLAVE); ours never out.
 *
 * Afterwards Landlock forbids the session every mount and umount (Documentation/userspace-api/
 * landlock.rst, "Filesystem topology modification"), so it cannot uncover them; and /proc/PID/root
 * of a process outside the session is refused to it too (Landlock's ptrace restriction), so it
 * cannot walk the daemon's view of the file system.
 *
 * Constants from <linux/sched.h>, <linux/mount.h> (MS_*) and <fcntl.h>.
 */
import { FFIType } from "bun:ffi";
import { openLibc, type Libc } from "../../../util/libc.ts";
import { isWithin } from "./hidden-paths.ts";

const CLONE_NEWNS = 0x00020000;
const MS_RDONLY = 1;
const MS_NOSUID = 2;
const MS_NODEV = 4;
const MS_NOEXEC = 8;
const MS_REMOUNT = 32;
const MS_BIND = 4096;
const MS_REC = 16384;
const MS_SLAVE = 1 << 19;
const O_PATH = 0o10000000;
const O_DIRECTORY = 0o200000;
const O_CLOEXEC = 0o2000000;
/**
 * The covering tmpfs: empty, nothing runnable, small (it only holds the mount points of `shown`);
 * private like the directory it covers, so ptyhub run inside finds it as its own (no chmod to try).
 */
const COVER_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC;
const COVER_OPTIONS = "mode=0700,size=64k";
const DIR_MODE = 0o755;

const MOUNT_SYMBOLS = {
  unshare: { args: [FFIType.i32], returns: FFIType.i32 },
  mount: { args: [FFIType.ptr, FFIType.cstring, FFIType.ptr, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
  mkdir: { args: [FFIType.cstring, FFIType.u32], returns: FFIType.i32 },
  open: { args: [FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

type Lib = Libc<typeof MOUNT_SYMBOLS>;

/** A C string for FFI: the buffer must stay referenced until the call returns. */
const cstr = (s: string) => Buffer.from(s + "\0");

function fail(lib: Lib, what: string): Error {
  const errno = lib.errno();
  return new Error(`${what}: ${lib.symbols.strerror(errno)} (errno ${errno})`);
}

function mount(lib: Lib, source: string | null, target: string, fstype: string | null, flags: number, data?: string) {
  const r = lib.symbols.mount(
    source === null ? null : cstr(source),
    cstr(target),
    fstype === null ? null : cstr(fstype),
    flags,
    data === undefined ? null : cstr(data),
  );
  if (r !== 0) throw fail(lib, `mount ${target}`);
}

/** mkdir -p of `path` beneath `base` (which exists), inside the covering tmpfs. */
function makeDirs(lib: Lib, base: string, path: string): void {
  let at = base;
  for (const part of path
    .slice(base.length)
    .split("/")
    .filter((p) => p.length > 0)) {
    at = `${at}/${part}`;
    lib.symbols.mkdir(cstr(at), DIR_MODE); // EEXIST on a second shown dir's shared parent
  }
}

/**
 * Moves the calling thread into a new mount namespace where each of `hidden` (resolved, none
 * beneath another) is an empty read-only directory, except the `shown` directories beneath them,
 * bound back in (the shell-integration scripts the session's shell sources, which may share the
 * daemon's directory). Throws with the reason at the first failure: the caller then must not run
 * the program.
 */
export function hideDirs(hidden: string[], shown: string[]): void {
  const lib = openLibc(MOUNT_SYMBOLS);
  if (lib.symbols.unshare(CLONE_NEWNS) !== 0) throw fail(lib, "unshare(CLONE_NEWNS)");
  // Our mounts must not propagate back to the host's namespace (a shared "/" would carry them).
  mount(lib, null, "/", null, MS_REC | MS_SLAVE);
  for (const dir of hidden) {
    // Opened before the cover goes on: afterwards the path leads only to the empty tmpfs.
    const keep = shown
      .filter((s) => isWithin(s, dir) && s !== dir)
      .map((s) => ({ path: s, fd: lib.symbols.open(cstr(s), O_PATH | O_DIRECTORY | O_CLOEXEC) }))
      .filter((s) => s.fd >= 0);
    mount(lib, "tmpfs", dir, "tmpfs", COVER_FLAGS, COVER_OPTIONS);
    for (const s of keep) {
      makeDirs(lib, dir, s.path);
      // The descriptor's magic link names the directory as it was before the cover.
      mount(lib, `/proc/self/fd/${s.fd}`, s.path, null, MS_BIND | MS_REC);
    }
    mount(lib, null, dir, null, MS_REMOUNT | MS_RDONLY | COVER_FLAGS);
  }
}
