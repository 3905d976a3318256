/**
 * Where the daemon lives, and its settings. The socket and locks go in the private runtime
 * directory ($XDG_RUNTIME_DIR/ptyhub, else $TMPDIR/ptyhub-<uid>; created 0700 and checked to be
 * ours), the log in the state directory ($XDG_STATE_HOME/ptyhub/daemon.log). Everything takes an
 * environment so tests (and tools) can address a daemon other than their own process's.
 */
import { join } from "node:path";
import { homedir } from "node:os";
import { ensurePrivateDir } from "../paths.ts";
import { AppError } from "../errors.ts";

/**
 * Default idle period: with no session and no client for this long, the daemon exits. A daemon
 * in that state holds nothing worth keeping (tmux exits at once); the minute only spares a client
 * that reconnects right away (an MCP server restarting) a ~150 ms daemon start.
 */
export const DEFAULT_DAEMON_IDLE_MS = 60_000;
/** sun_path is 108 bytes on Linux, 104 on macOS; stay below both with the NUL. */
const MAX_SOCKET_PATH = 103;

export interface DaemonPaths {
  dir: string;
  socket: string;
  /** Held by the running daemon for its whole life: at most one daemon per socket. */
  daemonLock: string;
  /** Held by a client while it starts a daemon: concurrent starters wait instead of racing. */
  startLock: string;
  log: string;
}

type Env = Record<string, string | undefined>;

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

export function daemonDir(env: Env = process.env): string {
  const base = env.XDG_RUNTIME_DIR;
  return ensurePrivateDir(base ? join(base, "ptyhub") : join(env.TMPDIR || "/tmp", `ptyhub-${uid()}`));
}

export function daemonStateDir(env: Env = process.env): string {
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return ensurePrivateDir(join(base, "ptyhub"));
}

export function daemonPaths(env: Env = process.env): DaemonPaths {
  const dir = daemonDir(env);
  const socket = join(dir, "daemon.sock");
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new AppError(
      "DAEMON_UNAVAILABLE",
      `the daemon's socket path is too long for a Unix socket (${Buffer.byteLength(socket)} bytes): ${socket}`,
      "Set XDG_RUNTIME_DIR to a shorter directory you own (e.g. /run/user/$UID).",
      false,
    );
  }
  return {
    dir,
    socket,
    daemonLock: join(dir, "daemon.lock"),
    startLock: join(dir, "start.lock"),
    log: join(daemonStateDir(env), "daemon.log"),
  };
}

/** PTYHUB_DAEMON_IDLE_MS: how long the daemon stays up with no session and no client. */
export function daemonIdleMs(env: Env = process.env): number {
  const raw = env.PTYHUB_DAEMON_IDLE_MS;
  const n = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_DAEMON_IDLE_MS;
}

/**
 * PTYHUB_PERSISTENT=0 turns the daemon off for this MCP server: term_open defaults to
 * persistent:false and term_exec's `main` lives in-process (sessions die with the server).
 */
export function persistentByDefault(env: Env = process.env): boolean {
  const raw = (env.PTYHUB_PERSISTENT ?? "").trim().toLowerCase();
  return !["0", "false", "no", "off"].includes(raw);
}
