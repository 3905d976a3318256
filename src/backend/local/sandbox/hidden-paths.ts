/**
 * What a sandboxed session must not reach: ptyhub's own directories. Through the daemon's socket a
 * confined program could ask the daemon for an unconfined session; with the HTTP token (state
 * dir) it could ask `serve --http` for one; through the config it could turn the guard off for the
 * next start. Each is hidden under every name ptyhub itself could use for it: the one this
 * process's environment gives (XDG_*, PTYHUB_SOCKET) and the default a client with another
 * environment would use. mount-ns.ts covers them with empty mounts in the session's own mount
 * namespace; Landlock cannot: it restricts writes, and connecting to a pathname socket needs no
 * Landlock right up to ABI 7 (Documentation/userspace-api/landlock.rst).
 */
import { mkdirSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { AppError } from "../../../api/errors.ts";
import { isNamedPipe, resolveSocket } from "../../../daemon-client/daemon-paths.ts";

type Env = Record<string, string | undefined>;

/** The name of ptyhub's directory inside each XDG base directory. */
const APP_DIR = "ptyhub";
/** The system temp dir by its fixed name, where the per-uid daemon directory defaults to. */
const SYSTEM_TMP = "/tmp";

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

/**
 * Every directory ptyhub may keep its socket, token, config or state in, as paths.ts and
 * daemon-paths.ts find them: from `env`, and as the defaults an environment without the
 * variables gives. Duplicates and directories that do not exist yet are left to hiddenDirs.
 */
export function ptyhubDirs(env: Env = process.env): string[] {
  const home = env.HOME || homedir();
  const perUid = `${APP_DIR}-${uid()}`;
  const dirs = [
    join(SYSTEM_TMP, perUid),
    join(tmpdir(), perUid),
    join(home, ".local", "state", APP_DIR),
    join(home, ".config", APP_DIR),
  ];
  const socket = resolveSocket(env);
  if (!isNamedPipe(socket)) dirs.push(dirname(socket));
  for (const base of [env.XDG_RUNTIME_DIR, env.XDG_STATE_HOME, env.XDG_CONFIG_HOME]) {
    if (base) dirs.push(join(base, APP_DIR));
  }
  return dirs;
}

/** `inner` is `outer` or lies beneath it. */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

function refuse(hidden: string, writable: string): AppError {
  return new AppError(
    "SPAWN_FAILED",
    `the sandbox cannot hide ptyhub's directory ${hidden} from a session that may write ${writable} ` +
      "(one holds the other; nothing was started)",
    "Open the sandboxed session with a cwd that neither contains nor lies inside ptyhub's directories " +
      "(its socket, state and config dirs), or move them (PTYHUB_SOCKET, XDG_STATE_HOME, XDG_CONFIG_HOME).",
    false,
  );
}

/**
 * The directories to hide from a session that may write beneath `writable` (resolved paths),
 * resolved and without those already beneath another: ptyhub's directories as this process's
 * environment names them, and as the session's own environment (`sessionEnv`: what the server
 * that opened it forwarded, which may name another state or socket dir) does.
 *
 * This process's are created first (0700) when they do not exist: one made later, by a daemon
 * started after the session, would not be hidden. One that cannot be created is skipped: the
 * session, as the same user with fewer rights, cannot create it either. The session env's are
 * hidden only where they exist: its variables come from the caller, whose paths we do not create.
 * Throws SPAWN_FAILED when a hidden directory and a writable one contain each other: the session
 * could rename the hidden one's parent away and put its own in its place.
 */
export function hiddenDirs(writable: string[], sessionEnv: Env = {}, env: Env = process.env): string[] {
  const resolved = new Set<string>();
  const add = (dir: string, create: boolean) => {
    try {
      if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
      resolved.add(realpathSync(dir));
    } catch {
      // Not creatable by this user, or not there: see above.
    }
  };
  for (const dir of ptyhubDirs(env)) add(dir, true);
  for (const dir of ptyhubDirs({ ...env, ...sessionEnv })) add(dir, false);
  const sorted = [...resolved].sort();
  const outermost = sorted.filter((d) => !sorted.some((o) => o !== d && isWithin(d, o)));
  for (const hidden of outermost) {
    for (const w of writable) if (isWithin(w, hidden) || isWithin(hidden, w)) throw refuse(hidden, w);
  }
  return outermost;
}
