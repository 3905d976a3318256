/**
 * Reaching the daemon, starting it on demand without races (tmux's client_connect is the model):
 *
 *   connect ─ok→ done
 *      └ not running → take the start lock (flock; an unshared lock file on Windows; concurrent
 *        starters wait on it, retrying the connect meanwhile, so whoever wins the lock starts the
 *        daemon and everyone else just connects to it) → connect again (someone may have started it while we waited)
 *        → spawn `ptyhub daemon` detached (its own session, stdio to the log) → poll-connect with
 *        backoff until it answers → release the lock.
 *
 * The daemon itself holds a second lock for its whole life (see server.ts), so even a `ptyhub
 * daemon` started by hand cannot make two daemons share one socket.
 */
import { closeSync, openSync, readFileSync } from "node:fs";
import { parse } from "node:path";
import { selfCommand } from "../self-command.ts";
import { AppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import { DaemonClient, DaemonConnectError } from "./client.ts";
import { tryLock, type Lock } from "./native.ts";
import { daemonPaths } from "./daemon-paths.ts";
import { retireOlderDaemon } from "./upgrade.ts";
import { sessionEnvAllow, withoutClientEnv } from "../config/client-env.ts";

const log = logger("daemon-start");

/**
 * Upper bound on starting a daemon, including waiting for another starter (who holds the start
 * lock only while alive). On a loaded machine, or under a user-mode emulator (PTYHUB_SELF_WRAPPER),
 * a start takes well over 10 s, and a live daemon that is still loading has not failed; one that
 * exits fails at once.
 */
const START_TIMEOUT_MS = 60_000;
/** First poll delay while waiting for a daemon to answer, and the cap of its backoff. */
const POLL_FIRST_MS = 10;
const POLL_MAX_MS = 150;

type Env = Record<string, string | undefined>;

export interface ReachOptions {
  role: string;
  env?: Env;
  /** Start a daemon when none is running (term_open); otherwise throw its DaemonConnectError. */
  start: boolean;
}

export async function reachDaemon(opts: ReachOptions): Promise<DaemonClient> {
  const env = opts.env ?? process.env;
  const paths = daemonPaths(env);
  const connect = () => DaemonClient.connect({ socket: paths.socket, role: opts.role, key: paths.key });
  let running: DaemonClient | null = null;
  try {
    running = await connect();
  } catch (err) {
    if (!opts.start || !(err instanceof DaemonConnectError) || !err.notRunning) throw err;
  }
  // A caller about to open a session meeting a daemon older than itself (an upgrade): an idle one
  // is replaced by a daemon of this version; one with sessions keeps serving (and it is said).
  if (running && (!opts.start || !(await retireOlderDaemon(running)))) return running;

  const deadline = Date.now() + START_TIMEOUT_MS;
  const tryConnect = async (): Promise<DaemonClient | null> => {
    try {
      return await connect();
    } catch (err) {
      if (err instanceof DaemonConnectError && err.notRunning) return null;
      throw err;
    }
  };

  let lock: Lock | null;
  let delay = POLL_FIRST_MS;
  while (!(lock = tryLock(paths.startLock))) {
    // Another process is starting the daemon: it will answer soon.
    const c = await tryConnect();
    if (c) return c;
    if (Date.now() > deadline) throw startTimeout(paths.log);
    await Bun.sleep(delay);
    delay = Math.min(delay * 2, POLL_MAX_MS);
  }
  try {
    const early = await tryConnect();
    if (early) return early;
    const argv = [...selfCommand(), "daemon"];
    log.info(`starting the daemon: ${argv.join(" ")}`);
    const logFd = openSync(paths.log, "a", 0o600);
    let proc: ReturnType<typeof Bun.spawn>;
    try {
      // detached: setsid, so the daemon is in no terminal's session and outlives its starter (on
      // Windows: DETACHED_PROCESS, no console and not in the starter's process group).
      // The daemon's environment is what its sessions inherit: not the MCP client's credentials.
      const daemonEnv = withoutClientEnv(env, sessionEnvAllow());
      // Windows: the root of the starter's drive, so drive-relative paths (`\\x`, `/x`) that tool
      // calls pass mean to the daemon what they meant to its starter.
      const cwd = process.platform === "win32" ? parse(process.cwd()).root : "/";
      proc = Bun.spawn(argv, { env: daemonEnv, cwd, detached: true, stdio: ["ignore", logFd, logFd] });
    } finally {
      closeSync(logFd);
    }
    proc.unref();
    delay = POLL_FIRST_MS;
    for (;;) {
      const c = await tryConnect();
      if (c) return c;
      if (proc.exitCode !== null && proc.exitCode !== 0) {
        throw new AppError(
          "DAEMON_UNAVAILABLE",
          `the ptyhub daemon failed to start (exit code ${proc.exitCode}): ${lastLogLine(paths.log)}`,
          `See its log: ${paths.log}`,
          false,
        );
      }
      if (Date.now() > deadline) throw startTimeout(paths.log);
      await Bun.sleep(delay);
      delay = Math.min(Math.ceil(delay * 1.5), POLL_MAX_MS);
    }
  } finally {
    lock.release();
  }
}

function startTimeout(logPath: string): AppError {
  return new AppError(
    "DAEMON_UNAVAILABLE",
    `the ptyhub daemon did not start within ${START_TIMEOUT_MS / 1000} s`,
    `See its log: ${logPath}`,
    true,
  );
}

function lastLogLine(path: string): string {
  try {
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    return lines[lines.length - 1]?.slice(0, 300) ?? "";
  } catch {
    return "(no log)";
  }
}
