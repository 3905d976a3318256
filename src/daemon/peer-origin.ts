/**
 * Whether a process that connected to the daemon runs inside one of the daemon's own sessions.
 * Such a peer is a program the session runs (a model's `ptyhub attach`, `ptyhub mcp`): through the
 * daemon it could read another session's screen (secrets typed there), type lines the human
 * declined, or have them recorded as the human's. The daemon refuses it (server.ts).
 *
 * Linux, from /proc, several independent signs, any one enough:
 *  - the daemon itself is among its ancestors (every session's program is the daemon's child);
 *  - its session id is a session leader the daemon started (each local session's program is one);
 *  - its controlling terminal is one of the daemon's sessions' terminals;
 *  - its environment names one of the daemon's sessions (PTYHUB_SESSION), which catches programs
 *    a session handed to a server started from it (a tmux server's panes, say).
 * A program that leaves all of these behind (double fork + setsid + a scrubbed environment, or a
 * request to a service outside: cron, systemd-run, ssh localhost) is not caught: this is a
 * seatbelt against a careless or confused model, not a boundary against a hostile one (the
 * sandbox is that: docs/safety.md, Sandbox).
 */
import { readFileSync } from "node:fs";

/** A local session as the check needs it: its name and its program's pid (a session leader). */
export interface HostedLeader {
  id: string;
  pid: number;
}

/** What hostingSession names when the daemon is an ancestor but no session leader is on the way. */
export const DAEMON_DESCENDANT = "(a process the daemon started)";

/** How far up the parent chain to look: deeper chains are not made by shells and programs. */
const MAX_ANCESTRY = 64;

interface ProcLink {
  ppid: number;
  sid: number;
  ttyNr: number;
}

function readLink(pid: number): ProcLink | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // pid (comm) state ppid pgrp session tty_nr …; comm may hold spaces and parentheses.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(f[1]), sid: Number(f[3]), ttyNr: Number(f[4]) };
}

function sessionVariable(pid: number): string | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
    const entry = env.find((e) => e.startsWith("PTYHUB_SESSION="));
    return entry ? entry.slice("PTYHUB_SESSION=".length) : null;
  } catch {
    return null;
  }
}

/**
 * The name of the daemon's session that `peerPid` runs in (or "the daemon" when it descends from
 * the daemon but from no session we can name), or null when it is outside them all or when
 * this cannot be told (not Linux).
 */
export function hostingSession(peerPid: number, daemonPid: number, leaders: HostedLeader[]): string | null {
  if (process.platform !== "linux" || peerPid === daemonPid) return null;
  const bySid = new Map(leaders.map((l) => [l.pid, l.id]));
  const byTty = new Map<number, string>();
  for (const l of leaders) {
    const tty = readLink(l.pid)?.ttyNr ?? 0;
    if (tty !== 0) byTty.set(tty, l.id);
  }
  const named = sessionVariable(peerPid);
  if (named !== null && leaders.some((l) => l.id === named)) return named;
  let pid = peerPid;
  for (let depth = 0; depth < MAX_ANCESTRY && pid > 1; depth++) {
    if (pid === daemonPid) return DAEMON_DESCENDANT;
    const link = readLink(pid);
    if (!link) return null;
    const hit = bySid.get(pid) ?? bySid.get(link.sid) ?? (link.ttyNr !== 0 ? byTty.get(link.ttyNr) : undefined);
    if (hit !== undefined) return hit;
    pid = link.ppid;
  }
  return null;
}
