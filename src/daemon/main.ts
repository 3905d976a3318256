/**
 * `ptyhub daemon [--status|--stop]`, `ptyhub ls`, `ptyhub kill SESSION`.
 *
 * `ptyhub daemon` runs the session host in the foreground; MCP servers start it on demand,
 * detached, so it is rarely run by hand. Its log is $XDG_STATE_HOME/ptyhub/daemon.log.
 */
import { closeSync, openSync, renameSync, statSync, writeSync } from "node:fs";
import { AppError } from "../api/errors.ts";
import { loadConfig } from "../config/config.ts";
import { configFingerprint } from "../config/config-fingerprint.ts";
import { daemonNotices } from "../daemon-client/notices.ts";
import { configNote } from "../config/config-health.ts";
import { LocalHost } from "../host/local-host.ts";
import { TOOL_TASK_RUNNER } from "../mcp/tasks/host-tasks.ts";
import { logger, setLogLevel, setLogSink } from "../log.ts";
import { VERSION } from "../version.ts";
import { DaemonConnectError, type DaemonClient } from "../daemon-client/client.ts";
import { daemonPaths } from "../daemon-client/daemon-paths.ts";
import { DaemonServer } from "./server.ts";
import { reachDaemon } from "../daemon-client/start.ts";
import { OrphanLedger, reapWithoutDaemon } from "./orphans.ts";
import { returnMemoryWhenSessionsEnd } from "../session/memory.ts";
import { pidAlive } from "../util/process-tree.ts";
import { parseVerbArgs, UsageError } from "../util/verb-args.ts";

const log = logger("daemon");

/** The log is rotated (one old generation kept) when it grows past this at daemon start. */
const LOG_ROTATE_BYTES = 5 * 1024 * 1024;
/** How long `--stop` waits for the daemon to close its sessions and exit. */
const STOP_WAIT_MS = 15_000;

const DAEMON_HELP = `Usage: ptyhub daemon [--status|--stop] [--json]

  (no flag)  run the session host in the foreground (MCP servers start it on demand)
  --status   show the running daemon: pid, version, sessions, socket and log paths
  --stop     stop it: every session it hosts is closed
Environment: PTYHUB_DAEMON_IDLE_MS (exit after this long with no session and no client;
default 60000, 0 = never), PTYHUB_SOCKET (socket path; default /tmp/ptyhub-UID/daemon.sock), XDG_STATE_HOME (log).
`;

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
}

async function waitPidGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pidAlive(pid)) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(25);
  }
  return true;
}

/** Connects to the running daemon, or returns null (after saying so) when none runs. */
async function connectExisting(role: string, quiet = false): Promise<DaemonClient | null> {
  try {
    return await reachDaemon({ role, start: false });
  } catch (err) {
    if (err instanceof DaemonConnectError && err.notRunning) {
      if (!quiet) process.stderr.write(`ptyhub: no daemon is running (socket ${daemonPaths().socket})\n`);
      return null;
    }
    throw err;
  }
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

const DAEMON_ARGS = {
  verb: "daemon",
  usage: DAEMON_HELP,
  options: { status: { type: "boolean" }, stop: { type: "boolean" }, json: { type: "boolean" } },
} as const;

export async function runDaemonCommand(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(DAEMON_ARGS, args);
  if (!parsed) return 0;
  const { values } = parsed;
  if (values.status && values.stop)
    throw new UsageError("daemon", "--status and --stop exclude each other", DAEMON_HELP);
  if (values.status) return status(values.json === true);
  if (values.stop) return stop();
  if (values.json) throw new UsageError("daemon", "--json goes with --status", DAEMON_HELP);
  return runDaemon();
}

async function status(json: boolean): Promise<number> {
  const c = await connectExisting("cli", json);
  if (!c) {
    if (json) out(JSON.stringify({ running: false, socket: daemonPaths().socket }));
    return 1;
  }
  try {
    const st = await c.control("status", {});
    if (json) {
      out(JSON.stringify({ running: true, ...st }));
      return 0;
    }
    out(
      [
        `ptyhub daemon pid ${st.pid} · version ${st.version} · protocol ${st.protocol} · up ` +
          `${formatDuration(st.uptime_ms)}`,
        `sessions ${st.sessions} · clients ${st.clients - 1} · attached ${st.attached}` +
          (st.idle_exit_ms > 0
            ? ` · exits after ${formatDuration(st.idle_exit_ms)} with no session and no client`
            : ""),
        `socket   ${st.socket}`,
        `log      ${st.log}`,
      ].join("\n"),
    );
    return 0;
  } finally {
    c.close();
  }
}

async function stop(): Promise<number> {
  let c: DaemonClient | null;
  try {
    c = await connectExisting("cli", true);
  } catch (err) {
    // A daemon of another protocol version cannot be asked; it can still be told, by signal.
    if (err instanceof DaemonConnectError && err.kind === "incompatible" && err.daemonPid) {
      process.kill(err.daemonPid, "SIGTERM");
      const gone = await waitPidGone(err.daemonPid, STOP_WAIT_MS);
      out(
        gone
          ? `stopped the incompatible daemon (pid ${err.daemonPid})`
          : `sent SIGTERM to daemon pid ${err.daemonPid}; it has not exited yet`,
      );
      return gone ? 0 : 1;
    }
    throw err;
  }
  if (!c) {
    const reaped = reapWithoutDaemon(daemonPaths())?.reduce((n, r) => n + r.pids.length, 0) ?? 0;
    out(reaped > 0 ? `no daemon is running; ended ${reaped} process(es) a dead daemon left` : "no daemon is running");
    return 0;
  }
  const st = await c.control("status", {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = new Promise<void>((resolve) => {
    c.onClose(resolve);
    timer = setTimeout(resolve, STOP_WAIT_MS);
  });
  await c.control("stop", {});
  await closed;
  clearTimeout(timer);
  const gone = await waitPidGone(st.pid, STOP_WAIT_MS);
  out(
    gone
      ? `stopped daemon pid ${st.pid} (${st.sessions} session${st.sessions === 1 ? "" : "s"} ended)`
      : `daemon pid ${st.pid} is still exiting`,
  );
  return gone ? 0 : 1;
}

/**
 * The daemon's log file, rotated (one old generation, `daemon.log.1`) whenever it grows past
 * LOG_ROTATE_BYTES, so a daemon that runs for weeks cannot fill the disk.
 */
class LogFile {
  private fd: number;
  private size = 0;

  constructor(private readonly path: string) {
    try {
      this.size = statSync(path).size;
    } catch {
      // No log yet.
    }
    this.fd = openSync(path, "a", 0o600);
  }

  write(line: string): void {
    try {
      if (this.size > LOG_ROTATE_BYTES) {
        closeSync(this.fd);
        renameSync(this.path, this.path + ".1");
        this.fd = openSync(this.path, "a", 0o600);
        this.size = 0;
      }
      this.size += writeSync(this.fd, line);
    } catch {
      // Disk full or log removed: logging must never take the daemon down.
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}

async function runDaemon(): Promise<number> {
  const paths = daemonPaths();
  const logFile = new LogFile(paths.log);
  const toTerminal = process.stderr.isTTY === true;
  setLogSink((line) => logFile.write(line));
  if (!process.env.PTYHUB_LOG_LEVEL) setLogLevel("info");
  // Don't keep the starter's directory busy; every session gets its cwd from its client.
  process.chdir("/");

  const config = loadConfig();
  const host = new LocalHost(config, TOOL_TASK_RUNNER, true);
  let ledger: OrphanLedger | null = null;
  const server = new DaemonServer(host, {
    paths,
    idleMs: config.daemon_idle_ms,
    configFingerprint: configFingerprint(config),
    onStopped: () => {
      ledger?.discard();
      logFile.close();
      process.exit(0);
    },
  });
  process.on("uncaughtException", (err) => log.error("uncaught exception (daemon keeps running)", err));
  process.on("unhandledRejection", (err) => log.error("unhandled rejection (daemon keeps running)", err));

  const started = await server.start();
  if (started === "running") {
    log.info(`pid ${process.pid}: another daemon already serves ${paths.socket}; exiting`);
    if (toTerminal) process.stderr.write(`ptyhub: a daemon is already running on ${paths.socket}\n`);
    await host.shutdown();
    return 0;
  }
  // We hold the daemon lock now: whatever a dead predecessor recorded and left running is ours to end.
  ledger = new OrphanLedger(paths.dir, paths.socket);
  ledger.reapPredecessors();
  ledger.track(host.manager);
  returnMemoryWhenSessionsEnd(host.manager);
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => void server.stop(sig));
  // Like tmux's server: a hangup of the terminal it was started from does not end the sessions.
  process.on("SIGHUP", () => log.info("SIGHUP ignored"));
  process.on("exit", () => host.manager.killAllNow());
  if (toTerminal)
    process.stderr.write(`ptyhub daemon ${VERSION} pid ${process.pid} on ${paths.socket} (log: ${paths.log})\n`);
  await new Promise<never>(() => {});
  return 0;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const LS_ARGS = {
  verb: "ls",
  usage: "Usage: ptyhub ls [--json]\n\nLists the persistent sessions the daemon hosts.\n  --json  one JSON array\n",
  options: { json: { type: "boolean" } },
} as const;

/** `ptyhub ls [--json]`: the daemon's sessions. */
export async function runLs(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(LS_ARGS, args);
  if (!parsed) return 0;
  const json = parsed.values.json === true;
  // On stderr, so `ls --json` stays one JSON array; new sessions would fail on a broken configuration.
  const note = configNote();
  if (note !== null) process.stderr.write(`ptyhub: ${note}\n`);
  const c = await connectExisting("cli", true);
  if (!c) {
    out(json ? "[]" : "no sessions (no daemon is running)");
    return 0;
  }
  try {
    // On stderr too: a daemon of another version, or one that has not taken changed settings.
    for (const notice of await daemonNotices(c)) process.stderr.write(`ptyhub: note: ${notice}\n`);
    const sessions = await c.invoke("list", {}, { clientId: `cli:${process.pid}` });
    if (json) {
      out(JSON.stringify(sessions));
      return 0;
    }
    if (sessions.length === 0) {
      out("no sessions");
      return 0;
    }
    const rows = [["SESSION", "STATE", "SIZE", "IDLE", "ATTACHED", "PID", "TARGET", "CWD"]];
    for (const s of sessions) {
      rows.push([
        s.session,
        s.alive ? s.state : `exited ${s.exit_code ?? "?"}`,
        `${s.cols}x${s.rows}`,
        formatDuration(s.idle_ms),
        s.attached ? "yes" : "",
        s.pid === null ? "" : String(s.pid),
        s.target,
        s.cwd ?? "",
      ]);
    }
    out(table(rows));
    return 0;
  } finally {
    c.close();
  }
}

const KILL_SIGNALS = ["TERM", "KILL", "HUP"] as const;
type KillSignal = (typeof KILL_SIGNALS)[number];

function isKillSignal(name: string): name is KillSignal {
  return KILL_SIGNALS.some((s) => s === name);
}

const KILL_ARGS = {
  verb: "kill",
  usage:
    "Usage: ptyhub kill SESSION [--signal TERM|KILL|HUP]\n\nCloses a persistent session (see `ptyhub ls`).\n" +
    "  --signal, -s SIG  the signal its program gets first (default: the session's usual close)\n",
  options: { signal: { type: "string", short: "s" } },
  positionals: { min: 1, max: 1, name: "SESSION (see `ptyhub ls`)" },
} as const;

/** `ptyhub kill SESSION [--signal TERM|KILL|HUP]`. */
export async function runKill(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(KILL_ARGS, args);
  if (!parsed) return 0;
  const [name] = parsed.positionals;
  if (name === undefined) return 2; // parseVerbArgs enforces one SESSION; kept for the type
  const signal = parsed.values.signal?.toUpperCase().replace(/^SIG/, "");
  if (signal !== undefined && !isKillSignal(signal)) {
    throw new UsageError(
      "kill",
      `--signal must be one of ${KILL_SIGNALS.join(", ")}, not '${parsed.values.signal}'`,
      KILL_ARGS.usage,
    );
  }
  const c = await connectExisting("cli", true);
  if (!c)
    throw new AppError(
      "SESSION_NOT_FOUND",
      `no session '${name}'`,
      "No ptyhub daemon is running, so there are no persistent sessions (`ptyhub ls` lists them).",
    );
  try {
    const r = await c.invoke("close", { session: name, signal }, { clientId: `cli:${process.pid}` });
    out(`closed ${r.session}${r.exit_code !== null ? ` (exit ${r.exit_code})` : ""}`);
    return 0;
  } finally {
    c.close();
  }
}
