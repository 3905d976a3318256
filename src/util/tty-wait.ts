/**
 * Whether a terminal's foreground program is blocked waiting for keys, as the kernel says it
 * (Linux only). A program waits for the terminal when one of its threads sleeps in read(2) of the
 * tty (`cat`, `read x`, a line editor such as linenoise), or in poll/select over nothing but the
 * tty (readline, vim, top, htop: keys or a redraw timer), or in an event loop's epoll_wait whose set
 * holds the tty and otherwise only the loop's own wake-ups (node's REPL: libuv's eventfd and
 * self-pipe). /proc says which: `syscall` gives the system call the thread sleeps in and its
 * arguments (the fd, the poll array and its length, the epoll fd), `fd/N` where a descriptor
 * points, `mem` the poll array itself, `fdinfo/N` an epoll set. A process that is on a CPU or on
 * disk, or sleeps anywhere else (nanosleep, wait4, a socket), is not waiting for the terminal.
 *
 * How it waits matters: with no time limit ("read": cat, readline) it waits for the user; with one
 * ("timed": top's redraw timer, vim's 4 s CursorHold, but also vim giving the terminal 100 ms to
 * answer a query as it exits) the caller believes it only after a longer quiet.
 *
 * Reading another process's `syscall` and `mem` needs ptrace access, which a parent has over the
 * programs it started (ptyhub's sessions); where it is refused, the answer is "not known" (null).
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from "node:fs";
import { groupMembers } from "./process-tree.ts";

/** System call numbers of the reads and waits we recognise, per architecture (asm/unistd.h). */
interface SyscallNumbers {
  /** read(fd, …), readv(fd, …), pread64(fd, …): the fd is the first argument. */
  reads: number[];
  /** poll(fds, nfds, …), ppoll(fds, nfds, …): an array of struct pollfd; poll (an int timeout) first. */
  polls: number[];
  /** The architecture has only ppoll (arm64): its first `polls` entry takes a timespec too. */
  ppollOnly?: boolean;
  /** select(nfds, readfds, …), pselect6(nfds, readfds, …): fd sets below nfds. */
  selects: number[];
  /**
   * epoll_wait(epfd, events, max, timeout), epoll_pwait(…, timeout, sigmask): an int of ms;
   * epoll_pwait2 (last): a timespec pointer.
   */
  epolls: number[];
}

const SYSCALLS: Partial<Record<string, SyscallNumbers>> = {
  x64: { reads: [0, 17, 19], polls: [7, 271], selects: [23, 270], epolls: [232, 281, 441] },
  arm64: { reads: [63, 65, 67], polls: [73], selects: [72], ppollOnly: true, epolls: [22, 441] },
};

/** ELF e_machine values of the architectures above (elf.h: EM_X86_64, EM_AARCH64). */
const ELF_MACHINES: Record<number, string> = { 62: "x64", 183: "arm64" };
/** Where e_machine sits in an ELF header, after e_ident (16 bytes) and e_type (2). */
const ELF_MACHINE_OFFSET = 18;
const ELF_MAGIC = 0x464c457f;

/** The kernel's own architecture as /proc/sys/kernel/arch names it (Linux 6.1+), in Node's names. */
const KERNEL_ARCHES: Record<string, string> = { x86_64: "x64", aarch64: "arm64" };

let native: boolean | null = null;

/**
 * Whether ptyhub runs on the kernel's own architecture (read once): then the programs it starts
 * are of that architecture too, and no ELF header needs reading on every check of a wait.
 */
function runsNatively(): boolean {
  if (native === null) {
    try {
      native = KERNEL_ARCHES[readFileSync("/proc/sys/kernel/arch", "latin1").trim()] === process.arch;
    } catch {
      native = false;
    }
  }
  return native;
}

/**
 * The system call numbers `pid` reports in /proc/PID/syscall: those of its own architecture,
 * which is not always ours. Under qemu-user (the linux-arm64 binary on an x86-64 host) ptyhub is
 * an arm64 program while the shells it starts are native x86-64 ones, so there the table is
 * chosen by the inspected program's ELF header, and by ours where that cannot be read.
 */
function syscallNumbersOf(pid: number): SyscallNumbers | null {
  if (runsNatively()) return SYSCALLS[process.arch] ?? null;
  let fd: number | null = null;
  try {
    fd = openSync(`/proc/${pid}/exe`, "r");
    const header = Buffer.alloc(ELF_MACHINE_OFFSET + 2);
    if (readSync(fd, header, 0, header.length, 0) === header.length && header.readUInt32LE(0) === ELF_MAGIC) {
      const arch = ELF_MACHINES[header.readUInt16LE(ELF_MACHINE_OFFSET)];
      return arch === undefined ? null : (SYSCALLS[arch] ?? null);
    }
  } catch {
    // Gone, or no ptrace access to its exe: assume it is of our own kind.
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return SYSCALLS[process.arch] ?? null;
}

/** How a program waits for the terminal: with no time limit, or with one; null: it does not. */
export type TtyWait = "read" | "timed" | null;

/** struct pollfd { int fd; short events; short revents; } */
const POLLFD_BYTES = 8;
const POLLIN = 0x1;
/** More descriptors than this in one poll is a server's event loop, not a program waiting for keys. */
const MAX_POLL_FDS = 64;

/**
 * Whether the foreground process group `pgrp` of session `sid` waits for the terminal `ttyPath`
 * (the PTY slave, e.g. /dev/pts/4): some thread of it is blocked reading (or polling only) that
 * terminal, and no thread of it is working (on a CPU or on disk). "read" when a thread waits with
 * no time limit. Linux only: null elsewhere.
 */
export function groupTtyWait(sid: number, pgrp: number, ttyPath: string): TtyWait {
  if (process.platform !== "linux") return null;
  let wait: TtyWait = null;
  for (const member of groupMembers(sid, pgrp)) {
    const numbers = syscallNumbersOf(member.pid);
    if (!numbers) return null;
    for (const task of tasksOf(member.pid)) {
      const state = taskState(member.pid, task);
      if (state === "R" || state === "D") return null;
      if (wait !== "read" && state === "S") wait = taskTtyWait(member.pid, task, ttyPath, numbers) ?? wait;
    }
  }
  return wait;
}

/**
 * Whether some thread of the foreground group `pgrp` sleeps waiting for the terminal among other
 * things: reading it, or polling a set that holds it (ssh polls its socket and the terminal).
 * False when the kernel says none does (`sleep`, a computation); null where it cannot say (not
 * Linux, no ptrace access). Text that looks like a prompt is a program asking only where this is
 * not false.
 */
export function groupWatchesTty(sid: number, pgrp: number, ttyPath: string): boolean | null {
  if (process.platform !== "linux") return null;
  let known = true;
  for (const member of groupMembers(sid, pgrp)) {
    const numbers = syscallNumbersOf(member.pid);
    if (!numbers) return null;
    for (const task of tasksOf(member.pid)) {
      if (taskState(member.pid, task) !== "S") continue;
      const watches = taskWatchesTty(member.pid, task, ttyPath, numbers);
      if (watches === true) return true;
      if (watches === null) known = false;
    }
  }
  return known ? false : null;
}

/**
 * Whether the process `pid` itself sleeps watching the terminal: none of its threads works (on a
 * CPU or on disk) and one sleeps in a read or wait that holds the terminal, as groupWatchesTty
 * asks of a group. For a shell at its prompt: its line editor waits for keys (zsh's and fish's may
 * wait for their own pipes too, async prompts and autosuggestions), while its helpers in the
 * group may still work. False when it works or sleeps elsewhere (wait4: a command of its own
 * runs); null where the kernel would not say (not Linux, no ptrace access).
 */
export function processWatchesTty(pid: number, ttyPath: string): boolean | null {
  const numbers = process.platform === "linux" ? syscallNumbersOf(pid) : null;
  if (!numbers) return null;
  const tasks = tasksOf(pid);
  if (tasks.length === 0) return false;
  let watches = false;
  let known = true;
  for (const task of tasks) {
    const state = taskState(pid, task);
    if (state === "R" || state === "D") return false;
    if (state !== "S" || watches) continue;
    const answer = taskWatchesTty(pid, task, ttyPath, numbers);
    if (answer === true) watches = true;
    if (answer === null) known = false;
  }
  return watches ? true : known ? false : null;
}

function tasksOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** The one-letter scheduler state of a thread (R, S, D, T, Z…), or null when it is gone. */
function taskState(pid: number, tid: string): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "latin1");
    return stat.charAt(stat.lastIndexOf(")") + 2) || null;
  } catch {
    return null;
  }
}

/** "nr arg1 … arg6 sp pc" while blocked in a call ("running" or "-1 …" otherwise); null without ptrace access. */
function syscallOf(pid: number, tid: string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/syscall`, "latin1").trim().split(" ");
  } catch {
    return null;
  }
}

function taskTtyWait(pid: number, tid: string, ttyPath: string, numbers: SyscallNumbers): TtyWait {
  const fields = syscallOf(pid, tid);
  if (fields === null) return null; // no ptrace access: not known
  const nr = Number(fields[0]);
  const arg = (i: number) => (fields[i] === undefined ? null : BigInt(fields[i]!));
  const isTty = (fd: number) => fdIsTty(pid, fd, ttyPath);
  if (numbers.reads.includes(nr)) {
    const fd = arg(1);
    return fd !== null && isTty(Number(fd)) ? "read" : null;
  }
  if (numbers.selects.includes(nr)) {
    const nfds = arg(1);
    // select(nfds, readfds, writefds, exceptfds, timeout): no timeout (NULL) waits for good.
    if (nfds === null || nfds <= 0n || !selectOnlyTty(pid, Number(nfds), isTty)) return null;
    return arg(5) === 0n ? "read" : "timed";
  }
  if (numbers.polls.includes(nr)) {
    const fdsAt = arg(1);
    const nfds = arg(2);
    if (fdsAt === null || nfds === null || nfds <= 0n || nfds > BigInt(MAX_POLL_FDS)) return null;
    if (!pollOnlyTty(pid, fdsAt, Number(nfds), isTty)) return null;
    // poll's timeout is an int of ms (negative: for good); ppoll's a timespec pointer (NULL: for good).
    const limit = arg(3);
    const forever = nr === numbers.polls[0] && !numbers.ppollOnly ? isNegativeInt(limit) : limit === 0n;
    return forever ? "read" : "timed";
  }
  if (numbers.epolls.includes(nr)) {
    const epfd = arg(1);
    if (epfd === null || !epollOnlyTty(pid, Number(epfd), isTty)) return null;
    const limit = arg(4);
    const forever = nr === numbers.epolls.at(-1) ? limit === 0n : isNegativeInt(limit);
    return forever ? "read" : "timed";
  }
  return null;
}

/** Whether a sleeping thread waits for the terminal among other things (see groupWatchesTty). */
function taskWatchesTty(pid: number, tid: string, ttyPath: string, numbers: SyscallNumbers): boolean | null {
  const fields = syscallOf(pid, tid);
  if (fields === null) return null;
  const nr = Number(fields[0]);
  const arg = (i: number) => (fields[i] === undefined ? null : BigInt(fields[i]!));
  const isTty = (fd: number) => fdIsTty(pid, fd, ttyPath);
  if (numbers.reads.includes(nr)) {
    const fd = arg(1);
    return fd !== null && isTty(Number(fd));
  }
  if (numbers.selects.includes(nr)) {
    // The fd sets are not read: any open terminal descriptor below nfds counts.
    const nfds = Number(arg(1) ?? 0n);
    for (let fd = 0; fd < nfds && fd < MAX_POLL_FDS; fd++) if (isTty(fd)) return true;
    return false;
  }
  if (numbers.polls.includes(nr)) {
    const fdsAt = arg(1);
    const nfds = arg(2);
    if (fdsAt === null || nfds === null || nfds <= 0n || nfds > BigInt(MAX_POLL_FDS)) return false;
    return pollHasTty(pid, fdsAt, Number(nfds), isTty);
  }
  if (numbers.epolls.includes(nr)) {
    const epfd = arg(1);
    return epfd !== null && epollHasTty(pid, Number(epfd), isTty);
  }
  return false;
}

/** Descriptors that only the process itself makes ready: an event loop's wake-ups, not input. */
const OWN_WAKEUPS = new Set(["anon_inode:[eventfd]", "anon_inode:[signalfd]", "anon_inode:[timerfd]"]);
/** `tfd:   20 events:   19 data: …`: a descriptor in an epoll set and the events asked for. */
const EPOLL_ENTRY = /^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)/gm;

/**
 * The epoll set `epfd` holds the terminal, asked for input, and otherwise only the process's own
 * wake-ups: eventfd, signalfd, timerfd, or a pipe whose both ends it holds (libuv's self-pipe). A
 * socket, another pipe or another epoll set is something else it waits for (ssh's connection).
 */
function epollOnlyTty(pid: number, epfd: number, isTty: (fd: number) => boolean): boolean {
  const entries = epollEntries(pid, epfd);
  if (!entries || entries.length > MAX_POLL_FDS) return false;
  let anyTty = false;
  let ownPipes: Map<string, number> | null = null;
  for (const { fd, events } of entries) {
    if (isTty(fd)) {
      if (events & POLLIN) anyTty = true;
      continue;
    }
    const target = fdTarget(pid, fd);
    if (target === null) return false;
    if (OWN_WAKEUPS.has(target)) continue;
    ownPipes ??= pipeEnds(pid);
    if (!target.startsWith("pipe:") || (ownPipes.get(target) ?? 0) < 2) return false;
  }
  return anyTty;
}

/** The epoll set `epfd` holds the terminal, asked for input, among any others. */
function epollHasTty(pid: number, epfd: number, isTty: (fd: number) => boolean): boolean {
  return (epollEntries(pid, epfd) ?? []).some((e) => e.events & POLLIN && isTty(e.fd));
}

/** The descriptors of another process's epoll set and the events asked for, from its fdinfo. */
function epollEntries(pid: number, epfd: number): { fd: number; events: number }[] | null {
  try {
    const info = readFileSync(`/proc/${pid}/fdinfo/${epfd}`, "latin1");
    return [...info.matchAll(EPOLL_ENTRY)].map((m) => ({ fd: Number(m[1]), events: parseInt(m[2]!, 16) }));
  } catch {
    return null;
  }
}

/** How many of the process's descriptors point at each pipe (2: it holds both ends). */
function pipeEnds(pid: number): Map<string, number> {
  const counts = new Map<string, number>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return counts;
  }
  for (const fd of fds) {
    const target = fdTarget(pid, Number(fd));
    if (target?.startsWith("pipe:")) counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  return counts;
}

function isNegativeInt(value: bigint | null): boolean {
  return value !== null && (value & 0x80000000n) !== 0n;
}

/**
 * select's sets hold only descriptors below nfds: when every open one of those is the terminal,
 * the terminal is all it waits on (readline, vim, top wait with nfds = 1: stdin).
 */
function selectOnlyTty(pid: number, nfds: number, isTty: (fd: number) => boolean): boolean {
  let anyTty = false;
  for (let fd = 0; fd < nfds; fd++) {
    const target = fdTarget(pid, fd);
    if (target === null) continue; // not open: in no set
    if (!isTty(fd)) return false;
    anyTty = true;
  }
  return anyTty;
}

/** Every descriptor in the poll array (negative ones are ignored by poll) is the terminal, asked for input. */
function pollOnlyTty(pid: number, fdsAt: bigint, nfds: number, isTty: (fd: number) => boolean): boolean {
  const entries = pollEntries(pid, fdsAt, nfds);
  if (!entries || entries.some((e) => !isTty(e.fd))) return false;
  return entries.some((e) => e.events & POLLIN);
}

/** The poll array holds the terminal, asked for input, among any others. */
function pollHasTty(pid: number, fdsAt: bigint, nfds: number, isTty: (fd: number) => boolean): boolean {
  return (pollEntries(pid, fdsAt, nfds) ?? []).some((e) => e.events & POLLIN && isTty(e.fd));
}

/** The descriptors of a poll array in another process (negative ones, which poll ignores, left out). */
function pollEntries(pid: number, fdsAt: bigint, nfds: number): { fd: number; events: number }[] | null {
  const array = readMemory(pid, fdsAt, nfds * POLLFD_BYTES);
  if (!array) return null;
  const view = new DataView(array.buffer, array.byteOffset, array.byteLength);
  const entries: { fd: number; events: number }[] = [];
  for (let i = 0; i < nfds; i++) {
    const fd = view.getInt32(i * POLLFD_BYTES, true);
    if (fd >= 0) entries.push({ fd, events: view.getInt16(i * POLLFD_BYTES + 4, true) });
  }
  return entries;
}

/** `length` bytes of another process's memory at `address` (needs ptrace access), or null. */
function readMemory(pid: number, address: bigint, length: number): Uint8Array | null {
  let fd: number | null = null;
  try {
    fd = openSync(`/proc/${pid}/mem`, "r");
    const buf = new Uint8Array(length);
    return readSync(fd, buf, 0, length, address) === length ? buf : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function fdTarget(pid: number, fd: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return null;
  }
}

/** The descriptor is the session's terminal: its PTY slave, or /dev/tty (which is that slave for its members). */
function fdIsTty(pid: number, fd: number, ttyPath: string): boolean {
  const target = fdTarget(pid, fd);
  return target === ttyPath || target === "/dev/tty";
}
