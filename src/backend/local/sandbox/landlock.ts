/**
 * Linux Landlock through bun:ffi: a process restricts itself so that it, and every program it
 * then executes, may write only beneath the directories it names. Reading and executing stay
 * allowed everywhere (those rights are not "handled", so Landlock does not restrict them).
 * Needs no privilege: PR_SET_NO_NEW_PRIVS first, then landlock_create_ruleset, add_rule per
 * directory, restrict_self. Both calls act on the calling thread, which is the one that execs.
 *
 * Constants from <linux/landlock.h> and <linux/prctl.h>; the three system calls have the same
 * numbers on every architecture that has them (the generic table, since Linux 5.13).
 */
import { FFIType, ptr } from "bun:ffi";
import { openLibc, type Libc } from "../../../util/libc.ts";

const SYS_LANDLOCK_CREATE_RULESET = 444;
const SYS_LANDLOCK_ADD_RULE = 445;
const SYS_LANDLOCK_RESTRICT_SELF = 446;
const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;

/** LANDLOCK_ACCESS_FS_* bits. */
const FS = {
  WRITE_FILE: 1n << 1n,
  REMOVE_DIR: 1n << 4n,
  REMOVE_FILE: 1n << 5n,
  MAKE_CHAR: 1n << 6n,
  MAKE_DIR: 1n << 7n,
  MAKE_REG: 1n << 8n,
  MAKE_SOCK: 1n << 9n,
  MAKE_FIFO: 1n << 10n,
  MAKE_BLOCK: 1n << 11n,
  MAKE_SYM: 1n << 12n,
  /** ABI 2: linking or renaming a file into another directory. */
  REFER: 1n << 13n,
  /** ABI 3: truncate(2), open(O_TRUNC). */
  TRUNCATE: 1n << 14n,
};

/**
 * ABI 6: LANDLOCK_SCOPE_SIGNAL, so the session cannot signal processes outside its domain (the
 * daemon that hosts every session, the user's other programs); signals into it, and those the
 * terminal sends, still arrive. Abstract Unix sockets (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET) are
 * left reachable: ptyhub listens on none, and X11 or D-Bus may.
 */
const SCOPE_SIGNAL = 1n << 1n;
const ABI_SCOPED = 6;
/** sizeof(struct landlock_ruleset_attr) without and with `handled_access_net` and `scoped`. */
const RULESET_ATTR_FS_ONLY = 8;
const RULESET_ATTR_SCOPED = 24;

/** Every way of changing the file system that the given ABI version can restrict. */
function writeRights(abi: number): bigint {
  let rights = FS.WRITE_FILE | FS.REMOVE_DIR | FS.REMOVE_FILE;
  rights |= FS.MAKE_CHAR | FS.MAKE_DIR | FS.MAKE_REG | FS.MAKE_SOCK | FS.MAKE_FIFO | FS.MAKE_BLOCK | FS.MAKE_SYM;
  if (abi >= 2) rights |= FS.REFER;
  if (abi >= 3) rights |= FS.TRUNCATE;
  return rights;
}

/** Rights that apply to a file itself (a rule on a non-directory may grant only these). */
function fileRights(abi: number): bigint {
  return FS.WRITE_FILE | (abi >= 3 ? FS.TRUNCATE : 0n);
}

// Pointers go to syscall(2) as plain integers (ptr() gives their address as a number).
const LANDLOCK_SYMBOLS = {
  syscall: { args: [FFIType.i64, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i64 },
  prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
  open: { args: [FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
  strerror: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

type Lib = Libc<typeof LANDLOCK_SYMBOLS>;

function errnoText(lib: Lib): string {
  const errno = lib.errno();
  return `${lib.symbols.strerror(errno)} (errno ${errno})`;
}

/**
 * The Landlock ABI version this kernel offers, 0 when it has none (too old, or Landlock not
 * enabled in the kernel's LSM list), or when this is not Linux.
 */
export function landlockAbi(): number {
  if (process.platform !== "linux") return 0;
  try {
    const lib = openLibc(LANDLOCK_SYMBOLS);
    const v = Number(lib.symbols.syscall(SYS_LANDLOCK_CREATE_RULESET, 0, 0, LANDLOCK_CREATE_RULESET_VERSION, 0));
    lib.close();
    return Math.max(v, 0);
  } catch {
    return 0;
  }
}

/** A path a rule grants: a directory (everything beneath it) or a single file such as /dev/null. */
export interface WritablePath {
  path: string;
  directory: boolean;
}

/**
 * Restricts the calling thread (and what it executes) to writing only beneath `writable`.
 * Throws with the reason when any step fails: the caller must then not run the program.
 */
export function restrictWrites(writable: WritablePath[]): void {
  const abi = landlockAbi();
  if (abi < 1) throw new Error("this kernel does not offer Landlock");
  const lib = openLibc(LANDLOCK_SYMBOLS);
  const handled = writeRights(abi);
  // struct landlock_ruleset_attr: handled_access_fs, handled_access_net (ABI 4; none handled:
  // the network stays open), scoped (ABI 6), each u64. An older kernel gets the part it knows.
  const scoped = abi >= ABI_SCOPED;
  const attr = new BigUint64Array(scoped ? [handled, 0n, SCOPE_SIGNAL] : [handled]);
  const size = scoped ? RULESET_ATTR_SCOPED : RULESET_ATTR_FS_ONLY;
  const rulesetFd = Number(lib.symbols.syscall(SYS_LANDLOCK_CREATE_RULESET, ptr(attr), size, 0, 0));
  if (rulesetFd < 0) throw new Error(`landlock_create_ruleset: ${errnoText(lib)}`);
  for (const w of writable) {
    const fd = lib.symbols.open(Buffer.from(w.path + "\0"), O_PATH | O_CLOEXEC);
    if (fd < 0) continue; // a path that does not exist grants nothing
    // struct landlock_path_beneath_attr (packed): allowed_access u64, parent_fd s32.
    const rule = new DataView(new ArrayBuffer(12));
    rule.setBigUint64(0, w.directory ? handled : fileRights(abi), true);
    rule.setInt32(8, fd, true);
    const rulePtr = ptr(rule.buffer);
    const r = Number(lib.symbols.syscall(SYS_LANDLOCK_ADD_RULE, rulesetFd, LANDLOCK_RULE_PATH_BENEATH, rulePtr, 0));
    const why = r < 0 ? errnoText(lib) : "";
    lib.symbols.close(fd);
    if (r < 0) throw new Error(`landlock_add_rule ${w.path}: ${why}`);
  }
  if (lib.symbols.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) {
    throw new Error(`prctl(PR_SET_NO_NEW_PRIVS): ${errnoText(lib)}`);
  }
  const r = Number(lib.symbols.syscall(SYS_LANDLOCK_RESTRICT_SELF, rulesetFd, 0, 0, 0));
  if (r < 0) throw new Error(`landlock_restrict_self: ${errnoText(lib)}`);
  lib.symbols.close(rulesetFd);
}
