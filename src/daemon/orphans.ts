/**
 * What a daemon started, written down so that its successor can end what it left behind. A
 * daemon killed with SIGKILL cannot end its sessions: their shells get SIGHUP from the closed
 * PTY, but `nohup` and `trap '' HUP` jobs live on, and nothing else would ever end them (issue
 * #10). So each daemon keeps a ledger of the Unix sessions (sid) its terminal sessions run in;
 * a new daemon, once it holds the daemon lock (so the ledger's writer is surely dead), reaps
 * every process still in a recorded sid that carries the recorded PTYHUB_SESSION in its
 * environment (the check that makes a recycled sid harmless), logs it, and drops the ledger.
 *
 * The ledger lives in the runtime directory beside the socket and lock, not in the state
 * directory: the runtime directory is emptied at reboot, exactly when the pids it names become
 * meaningless.
 *
 * Daemons with different sockets (PTYHUB_SOCKET) may share that directory, and holding one
 * socket's lock says nothing about another daemon (issue #21: starting or stopping daemon b
 * SIGKILLed the live sessions of daemon a). So a ledger names its writer (pid, start time, socket),
 * and a ledger is reaped only when its writer is provably gone: it was this socket's daemon (whose
 * lock we hold), or no process with its pid and start time exists. A ledger whose writer may live
 * is left alone.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { kindDescriptor } from "../backend/registry/kinds.ts";
import { join } from "node:path";
import { processStartTime, sessionMembers } from "../util/process-tree.ts";
import { tryLock } from "../daemon-client/native.ts";
import type { DaemonPaths } from "../daemon-client/daemon-paths.ts";
import { logger } from "../log.ts";
import type { SessionManager } from "../session/manager.ts";

const log = logger("orphans");

const LEDGER_PREFIX = "started-";
const LEDGER_SUFFIX = ".json";

interface LedgerEntry {
  /** The terminal session's name (its processes carry PTYHUB_SESSION=<name>). */
  session: string;
  /** The Unix session id its program leads. */
  sid: number;
}

interface Ledger {
  daemonPid: number;
  /** The writer's start time (processStartTime); absent in ledgers of older versions. */
  daemonStart?: string;
  /** The socket the writer served; absent in ledgers of older versions. */
  socket?: string;
  entries: LedgerEntry[];
}

export interface Reaped {
  daemonPid: number;
  session: string;
  pids: number[];
}

/** Processes of Unix session `sid` whose environment says they belong to terminal session `name`. */
function ownedMembers(sid: number, name: string): number[] {
  const marker = `PTYHUB_SESSION=${name}`;
  return sessionMembers(sid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker);
    } catch {
      return false;
    }
  });
}

function readLedger(path: string): Ledger | null {
  try {
    const data: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (data === null || typeof data !== "object" || !("daemonPid" in data) || !("entries" in data)) return null;
    const { daemonPid, entries } = data;
    if (typeof daemonPid !== "number" || !Array.isArray(entries)) return null;
    const valid = entries.filter(
      (e): e is LedgerEntry =>
        e !== null && typeof e === "object" && typeof e.session === "string" && Number.isInteger(e.sid) && e.sid > 1,
    );
    const daemonStart = "daemonStart" in data && typeof data.daemonStart === "string" ? data.daemonStart : undefined;
    const socket = "socket" in data && typeof data.socket === "string" ? data.socket : undefined;
    return { daemonPid, daemonStart, socket, entries: valid };
  } catch {
    return null;
  }
}

/**
 * Whether the daemon that wrote `ledger` is surely gone. `socket` is the caller's, whose daemon
 * lock it holds: that socket's earlier daemon is dead. Any other writer is dead only when no live
 * process has its pid, or the pid's process started at another time (a recycled pid); a ledger
 * of an older version, without a start time, counts as live while its pid lives.
 */
function writerGone(ledger: Ledger, socket: string): boolean {
  if (ledger.socket === socket) return true;
  const started = processStartTime(ledger.daemonPid);
  if (started === null) return true;
  return ledger.daemonStart !== undefined && ledger.daemonStart !== started;
}

export class OrphanLedger {
  private readonly path: string;
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly started = processStartTime(process.pid) ?? undefined;

  /** `socket`: the one this daemon serves, whose daemon lock the caller holds. */
  constructor(
    private readonly dir: string,
    private readonly socket: string,
  ) {
    this.path = join(dir, `${LEDGER_PREFIX}${process.pid}${LEDGER_SUFFIX}`);
  }

  /**
   * Ends what dead predecessors left. Only call while holding this socket's daemon lock; ledgers
   * of daemons that may still live (another socket's) are left alone.
   */
  reapPredecessors(): Reaped[] {
    const reaped: Reaped[] = [];
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return reaped;
    }
    for (const name of names) {
      if (!name.startsWith(LEDGER_PREFIX) || !name.endsWith(LEDGER_SUFFIX)) continue;
      const path = join(this.dir, name);
      if (path === this.path) continue;
      const ledger = readLedger(path);
      if (ledger !== null && !writerGone(ledger, this.socket)) continue;
      for (const entry of ledger?.entries ?? []) {
        const pids = process.platform === "linux" ? ownedMembers(entry.sid, entry.session) : [];
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Gone meanwhile.
          }
        }
        if (pids.length > 0) {
          reaped.push({ daemonPid: ledger!.daemonPid, session: entry.session, pids });
          log.info(
            `reaped ${pids.length} process(es) of session '${entry.session}' ` +
              `left by dead daemon pid ${ledger!.daemonPid}: ${pids.join(", ")}`,
          );
        }
      }
      rmSync(path, { force: true });
    }
    return reaped;
  }

  /** Records every session the manager opens (with a pid: local PTYs) and forgets closed ones. */
  track(manager: SessionManager): () => void {
    this.save();
    return manager.onSessionEvent((event) => {
      if (event.kind === "opened") {
        const info = manager.list().find((s) => s.session === event.session);
        const pid = info && kindDescriptor(info.kind).localProcess ? info.pid : null;
        if (pid === null || pid === undefined) return;
        this.entries.set(event.session, { session: event.session, sid: pid });
        this.save();
      } else if (event.kind === "closed" && this.entries.delete(event.session)) {
        this.save();
      }
    });
  }

  /** Removes this daemon's ledger (a clean stop ends its sessions itself). */
  discard(): void {
    rmSync(this.path, { force: true });
  }

  private save(): void {
    const ledger: Ledger = {
      daemonPid: process.pid,
      daemonStart: this.started,
      socket: this.socket,
      entries: [...this.entries.values()],
    };
    const tmp = `${this.path}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(ledger), { mode: 0o600 });
      renameSync(tmp, this.path);
    } catch (err) {
      log.warn(`could not record started sessions in ${this.path}`, err);
    }
  }
}

/**
 * `ptyhub daemon --stop` with no daemon running: ends what a dead daemon left, if no daemon holds
 * the lock meanwhile (one starting now reaps them itself). Returns what was reaped, or null when
 * a daemon holds the lock.
 */
export function reapWithoutDaemon(paths: DaemonPaths): Reaped[] | null {
  const lock = tryLock(paths.daemonLock);
  if (!lock) return null;
  try {
    return new OrphanLedger(paths.dir, paths.socket).reapPredecessors();
  } finally {
    lock.release();
  }
}
