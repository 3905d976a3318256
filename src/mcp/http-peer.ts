/**
 * Which local process sent an HTTP request, and whether it runs inside a ptyhub session (issue 23,
 * item 4): a program a session runs must not drive ptyhub over HTTP with a token it read, any more
 * than over the daemon's socket (daemon/peer-origin.ts). TCP has no SO_PEERCRED, so on Linux the
 * connection is found in /proc/net/tcp{,6} (the peer's end: its port, and our port as remote), its
 * socket inode in some process's descriptors, and that process's ancestry is searched for the
 * PTYHUB_SESSION every session's program starts with (an initial environment, which a descendant
 * that scrubbed its own cannot change). Elsewhere, and for remote peers, nothing is known.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** How far up the parent chain to look. */
const MAX_ANCESTRY = 64;
/** A connection's verdict is kept this long (keep-alive requests come on the same connection). */
const VERDICT_TTL_MS = 30_000;
const MAX_CACHED_VERDICTS = 1024;

const SESSION_VAR = "PTYHUB_SESSION=";

/** The inode of the socket whose local port is `peerPort` and remote port `serverPort`, or null. */
function socketInode(peerPort: number, serverPort: number): string | null {
  const local = `:${peerPort.toString(16).toUpperCase().padStart(4, "0")}`;
  const remote = `:${serverPort.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[1]!.endsWith(local) && f[2]!.endsWith(remote)) return f[9]!;
    }
  }
  return null;
}

/** The process holding socket `inode` (the first found), or null. */
function holderOf(inode: string): number | null {
  const want = `socket:[${inode}]`;
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      continue; // Gone, or not ours to look at.
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${name}/fd/${fd}`) === want) return Number(name);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return null;
}

/** The PTYHUB_SESSION in the initial environment of `pid` or an ancestor, or null. */
function sessionInAncestry(pid: number): string | null {
  let p = pid;
  for (let depth = 0; depth < MAX_ANCESTRY && p > 1; depth++) {
    try {
      const entry = readFileSync(`/proc/${p}/environ`, "latin1")
        .split("\0")
        .find((e) => e.startsWith(SESSION_VAR));
      if (entry && entry.length > SESSION_VAR.length) return entry.slice(SESSION_VAR.length);
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return null;
    }
  }
  return null;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export class HttpPeers {
  private readonly verdicts = new Map<string, { session: string | null; at: number }>();

  constructor(private readonly serverPort: number) {}

  /** The ptyhub session a loopback request's sender runs in, or null (outside, remote, or unknown). */
  sessionOf(peer: { address: string; port: number } | null): string | null {
    if (process.platform !== "linux" || !peer || !LOOPBACK.test(peer.address)) return null;
    const key = `${peer.address}|${peer.port}`;
    const now = Date.now();
    const cached = this.verdicts.get(key);
    if (cached && now - cached.at < VERDICT_TTL_MS) return cached.session;
    const inode = socketInode(peer.port, this.serverPort);
    const pid = inode === null ? null : holderOf(inode);
    const session = pid === null ? null : sessionInAncestry(pid);
    if (this.verdicts.size >= MAX_CACHED_VERDICTS) this.verdicts.clear();
    this.verdicts.set(key, { session, at: now });
    return session;
  }
}
