/**
 * Where the daemon lives, and its settings. The socket and locks go in a private directory found
 * the way tmux finds its own: from the uid alone, `/tmp/ptyhub-<uid>/`, so every client meets the
 * same daemon whatever environment it passes its MCP server (Codex keeps only HOME, LANG, PATH,
 * SHELL, TERM and TMPDIR; a socket under $XDG_RUNTIME_DIR or $TMPDIR would split one user's
 * sessions between daemons that `ptyhub ls` and `attach` cannot all see). PTYHUB_SOCKET names
 * another socket path. The directory is created 0700 and refused unless it is ours (and, under
 * /tmp, a real directory rather than a symlink someone planted). The log goes in the state
 * directory ($XDG_STATE_HOME/ptyhub/daemon.log). Everything takes an environment so tests (and
 * tools) can address a daemon other than their own process's.
 *
 * On Windows the daemon listens on a named pipe, `\\.\pipe\ptyhub-<user>` (Wine 8.0 has no
 * AF_UNIX, and the pipe namespace needs no directory), and its locks go in a private directory under
 * the state directory. Who may open the pipe is said by its default DACL (see server.ts); that the
 * two ends are the same user is proven with a key kept in that private directory (pipe-auth.ts).
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir, userInfo } from "node:os";
import { ensurePrivateDir } from "../paths.ts";
import { AppError } from "../api/errors.ts";
import { KEY_FILE_NAME } from "./pipe-auth.ts";

/** sun_path is 108 bytes on Linux, 104 on macOS; stay below both with the NUL. */
const MAX_SOCKET_PATH = 103;
/** The system temp dir by its fixed name, as tmux uses it: $TMPDIR differs between environments. */
const SYSTEM_TMP = "/tmp";
const SOCKET_NAME = "daemon.sock";
/** The namespace of Windows named pipes; Bun.listen/Bun.connect take such a path for `unix`. */
const PIPE_PREFIX = "\\\\.\\pipe\\";
/** Characters a pipe name may not hold, in a user name that goes into one. */
const PIPE_NAME_UNSAFE = /[^A-Za-z0-9._-]/g;
const SOCKET_DIR_HINT =
  "Remove it if another user made it, or set PTYHUB_SOCKET (for every client) to a socket path in a directory " +
  "only you can write, e.g. /run/user/$UID/ptyhub.sock.";

export interface DaemonPaths {
  dir: string;
  socket: string;
  /** Held by the running daemon for its whole life: at most one daemon per socket. */
  daemonLock: string;
  /** Held by a client while it starts a daemon: concurrent starters wait instead of racing. */
  startLock: string;
  log: string;
  /**
   * The user's key file, which both ends of a connection prove they hold (pipe-auth.ts); null where
   * the transport itself tells who the peer is (a Unix socket in a private directory, peer uid).
   */
  key: string | null;
}

type Env = Record<string, string | undefined>;

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

/** A Windows named pipe rather than a Unix socket file: nothing to unlink, chmod or stat. */
export function isNamedPipe(path: string): boolean {
  return path.startsWith(PIPE_PREFIX);
}

/** The socket path, from PTYHUB_SOCKET or the uid (the user name on Windows); nothing is created. */
export function resolveSocket(env: Env = process.env): string {
  if (env.PTYHUB_SOCKET) return env.PTYHUB_SOCKET;
  if (process.platform === "win32") return `${PIPE_PREFIX}ptyhub-${userInfo().username.replace(PIPE_NAME_UNSAFE, "_")}`;
  return join(SYSTEM_TMP, `ptyhub-${uid()}`, SOCKET_NAME);
}

export function daemonDir(env: Env = process.env): string {
  // A pipe lives in no directory: its locks and ledger go in a private one of the state directory.
  if (isNamedPipe(resolveSocket(env))) return ensurePrivateDir(join(daemonStateDir(env), "daemon"));
  const dir = dirname(resolveSocket(env));
  if (!env.PTYHUB_SOCKET) refusePlanted(dir);
  // XDG_RUNTIME_DIR does not move the daemon's directory (see above): only PTYHUB_SOCKET does.
  return ensurePrivateDir(dir, SOCKET_DIR_HINT);
}

/** A shared temp dir lets anyone create our directory's name first: only a real directory will do. */
export function refusePlanted(dir: string): void {
  let isLink = false;
  try {
    isLink = lstatSync(dir).isSymbolicLink();
  } catch {
    return; // Not there yet: ensurePrivateDir creates it.
  }
  if (isLink) {
    throw new AppError(
      "DAEMON_UNAVAILABLE",
      `${dir} is a symbolic link, not the daemon's private directory`,
      "Remove it, or set PTYHUB_SOCKET to a socket path in a directory you own.",
      false,
    );
  }
}

export function daemonStateDir(env: Env = process.env): string {
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return ensurePrivateDir(join(base, "ptyhub"));
}

export function daemonPaths(env: Env = process.env): DaemonPaths {
  const dir = daemonDir(env);
  const socket = resolveSocket(env);
  const pipe = isNamedPipe(socket);
  if (!pipe && Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new AppError(
      "DAEMON_UNAVAILABLE",
      `the daemon's socket path is too long for a Unix socket (${Buffer.byteLength(socket)} bytes): ${socket}`,
      "Set PTYHUB_SOCKET to a shorter socket path in a directory you own (e.g. /run/user/$UID/ptyhub.sock).",
      false,
    );
  }
  return {
    dir,
    socket,
    // Named after the socket: an overriding PTYHUB_SOCKET may share its directory with other sockets.
    daemonLock: pipe ? join(dir, "daemon.lock") : `${socket}.lock`,
    startLock: pipe ? join(dir, "daemon.start.lock") : `${socket}.start.lock`,
    log: join(daemonStateDir(env), "daemon.log"),
    key: pipe ? join(dir, KEY_FILE_NAME) : null,
  };
}
