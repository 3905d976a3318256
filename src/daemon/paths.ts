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

