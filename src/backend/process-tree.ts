/**
 * Ending everything a session started. A PTY's program is a session leader (setsid); with job
 * control, its background jobs get process groups of their own, so killing the leader's group is
 * not enough: `sleep 300 &` would survive. We find every process of the session (Linux: /proc,
 * elsewhere `ps`) and signal each one.
 */
import { readdirSync, readFileSync } from "node:fs";

/** How long each polite signal gets before the next, harsher one. */
export const GRACE_AFTER_HUP_MS = 400;
export const GRACE_AFTER_TERM_MS = 1200;
/** Poll interval while waiting for processes to go away (there is no event for a non-child). */
const GONE_POLL_MS = 20;

/** Live (non-zombie) processes whose session id is `sid`. */
export function sessionMembers(sid: number): number[] {
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
      let stat: string;
      try {
        stat = readFileSync(`/proc/${name}/stat`, "latin1");
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp session …; comm may contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      if (Number(fields[3]) === sid) out.push(Number(name));
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
        ? [["SIGTERM", GRACE_AFTER_TERM_MS], ["SIGKILL", GRACE_AFTER_TERM_MS]]
        : [[first, GRACE_AFTER_HUP_MS], ["SIGTERM", GRACE_AFTER_TERM_MS], ["SIGKILL", GRACE_AFTER_TERM_MS]];
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
