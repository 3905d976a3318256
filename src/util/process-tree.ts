/**
 * Ending everything a session started. A PTY's program is a session leader (setsid); with job
 * control, its background jobs get process groups of their own, so killing the leader's group is
 * not enough: `sleep 300 &` would survive. We find every process of the session (Linux: /proc,
 * elsewhere `ps`) and signal each one.
 */
import { readdirSync, readlinkSync, readFileSync } from "node:fs";
import { constants } from "node:os";

/** How long each polite signal gets before the next, harsher one. */
export const GRACE_AFTER_HUP_MS = 400;
export const GRACE_AFTER_TERM_MS = 1200;
/** Poll interval while waiting for processes to go away (there is no event for a non-child). */
const GONE_POLL_MS = 20;

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  pgrp: number;
  session: number;
  /** When the process started, in clock ticks since boot: with the pid, names one process for good. */
  startTicks: number;
}

function readStat(pid: string | number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // pid (comm) state ppid pgrp session …; comm may contain spaces and parentheses.
  const close = stat.lastIndexOf(")");
  const f = stat.slice(close + 2).split(" ");
  return {
    pid: Number(pid),
    comm: stat.slice(stat.indexOf("(") + 1, close),
    state: f[0]!,
    pgrp: Number(f[2]),
    session: Number(f[3]),
    startTicks: Number(f[19]),
  };
}

/** processStartTime's answer for a live pid on Windows, where its start time is not read. */
const WINDOWS_LIVE_PID = "live";

/**
 * What tells process `pid` apart from a later process given the same pid: its start time (Linux:
 * ticks since boot from /proc; elsewhere `ps`'s start time). Null when no such (live) process
 * exists.
 */
export function processStartTime(pid: number): string | null {
  // Windows has no `ps` (spawning it throws): a live pid there is told by nothing more than being
  // alive, as for a ledger of an older version (orphans.ts). A job object ends a session's tree.
  if (process.platform === "win32") return pidAlive(pid) ? WINDOWS_LIVE_PID : null;
  if (process.platform === "linux") {
    const st = readStat(pid);
    return st && st.state !== "Z" && st.state !== "X" ? String(st.startTicks) : null;
  }
  const ps = Bun.spawnSync(["ps", "-p", String(pid), "-o", "lstart="], { stdout: "pipe", stderr: "ignore" });
  const out = ps.stdout.toString().trim();
  return ps.exitCode === 0 && out !== "" ? out : null;
}

/**
 * Pid and name of the leader of process group `pgrp` (the process whose pid is the group's id),
 * when it is a live process of session `sid`: with the terminal's foreground group (tcgetpgrp),
 * the program a job started with, not the helpers it runs (Linux only; null elsewhere, or when
 * that leader is gone).
 */
export function groupLeader(sid: number, pgrp: number): { pid: number; comm: string } | null {
  if (process.platform !== "linux") return null;
  const head = readStat(pgrp);
  return head && head.session === sid && head.state !== "Z" ? { pid: head.pid, comm: head.comm } : null;
}

/** A process's arguments, argv[0] first (Linux only; null when unreadable). */
export function commandArgs(pid: number): string[] | null {
  if (process.platform !== "linux") return null;
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw.split("\0").slice(0, raw.endsWith("\0") ? -1 : undefined);
  } catch {
    return null;
  }
}

/**
 * Names of the live processes of session `sid` in process group `pgrp` (Linux only; [] elsewhere):
 * with the group from the terminal itself (tcgetpgrp), this works after the leader is gone.
 */
export function groupCommands(sid: number, pgrp: number): string[] {
  return groupMembers(sid, pgrp).map((p) => p.comm);
}

/** Base names of the executables of group `pgrp`'s processes (Linux; a process not ours to read is left out). */
export function groupExecutables(sid: number, pgrp: number): string[] {
  const names: string[] = [];
  for (const p of groupMembers(sid, pgrp)) {
    try {
      const exe = readlinkSync(`/proc/${p.pid}/exe`);
      names.push(exe.slice(exe.lastIndexOf("/") + 1).replace(/ \(deleted\)$/, ""));
    } catch {
      // Gone in the meantime, or another user's: its name (comm) still stands for it.
    }
  }
  return names;
}

/**
 * Whether a live process of session `sid` in process group `pgrp` is on (or waiting for) a CPU, or
 * in uninterruptible sleep (disk): working, not waiting for input (Linux only; false elsewhere).
 */
export function groupBusy(sid: number, pgrp: number): boolean {
  return groupMembers(sid, pgrp).some((p) => p.state === "R" || p.state === "D");
}

/** The live processes of session `sid` in process group `pgrp`: a scan of /proc, about a millisecond. */
export function groupMembers(sid: number, pgrp: number): ProcStat[] {
  if (process.platform !== "linux") return [];
  const members: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const st = readStat(name);
    if (st && st.session === sid && st.pgrp === pgrp && st.state !== "Z") members.push(st);
  }
  return members;
}

/** Whether a process exists (EPERM: it does, but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signal number of a name like "HUP" or "SIGHUP" (for 128 + n exit codes), if known. */
export function signalNumber(name: string): number | undefined {
  const key = (name.startsWith("SIG") ? name : `SIG${name}`) as keyof typeof constants.signals;
  return constants.signals[key];
}

/** Live (non-zombie) processes whose session id is `sid`. */
export function sessionMembers(sid: number): number[] {
  if (process.platform === "win32") return []; // No POSIX sessions, and no `ps` to ask.
  if (process.platform === "linux") {
    const out: number[] = [];
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return [];
    }
    for (const name of entries) {
      const c = name.charCodeAt(0);
      if (c < 48 || c > 57) continue;
      const st = readStat(name);
      if (!st || st.state === "Z" || st.state === "X") continue;
      if (st.session === sid) out.push(st.pid);
    }
    return out;
  }
  const ps = Bun.spawnSync(["ps", "-A", "-o", "pid=,sess=,stat="], { stdout: "pipe", stderr: "ignore" });
  const out: number[] = [];
  for (const line of ps.stdout.toString().split("\n")) {
    const [pid, sess, stat] = line.trim().split(/\s+/);
    if (Number(sess) === sid && !stat?.startsWith("Z")) out.push(Number(pid));
  }
  return out;
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone: fine.
    }
  }
}

async function waitGone(sid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (sessionMembers(sid).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(GONE_POLL_MS);
  }
}

/**
 * Signals every process of session `sid` with `first`, then SIGTERM, then SIGKILL, giving each
 * step a grace period. Resolves when none is left.
 */
export async function terminateSession(sid: number, first: NodeJS.Signals = "SIGHUP"): Promise<void> {
  const steps: Array<[NodeJS.Signals, number]> =
    first === "SIGKILL"
      ? [["SIGKILL", GRACE_AFTER_TERM_MS]]
      : first === "SIGTERM"
        ? [
            ["SIGTERM", GRACE_AFTER_TERM_MS],
            ["SIGKILL", GRACE_AFTER_TERM_MS],
          ]
        : [
            [first, GRACE_AFTER_HUP_MS],
            ["SIGTERM", GRACE_AFTER_TERM_MS],
            ["SIGKILL", GRACE_AFTER_TERM_MS],
          ];
  for (const [signal, grace] of steps) {
    const members = sessionMembers(sid);
    if (members.length === 0) return;
    signalAll(members, signal);
    if (await waitGone(sid, grace)) return;
  }
}

/** Synchronous last resort at process exit: SIGKILL every member of each session. */
export function killSessionsNow(sids: number[]): void {
  for (const sid of sids) signalAll(sessionMembers(sid), "SIGKILL");
}
