/**
 * The composition every MCP transport shares: the session host built from the configuration, and
 * its shutdown. Persistent sessions (the default) live in the daemon and outlive this process; the
 * rest live here and end with it. stdio and HTTP both start from this, so they serve one world of
 * sessions with the same routing and the same shutdown guarantees.
 */
import { ConfigError, loadConfig, type Config } from "../config/config.ts";
import { ConfigGatedHost, defaultConfig } from "../host/config-gate.ts";
import type { Logger } from "../log.ts";
import type { SessionHost } from "../api/host.ts";
import { LocalHostSlot } from "../host/local-slot.ts";
import { DaemonHost } from "../host/daemon-host.ts";
import { RoutingHost } from "../host/routing-host.ts";
import { returnMemoryWhenSessionsEnd } from "../session/memory.ts";

export interface App {
  readonly config: Config;
  readonly host: SessionHost;
  /** Ends this process's sessions (gracefully); the daemon's keep running. */
  shutdown(): Promise<void>;
  /** Last resort when a graceful shutdown takes too long, or at process exit: kills at once. */
  killNow(): void;
}

export function createApp(config: Config = loadConfig()): App {
  // This process's own sessions, and the session stack with them, load with the first one opened.
  const local = new LocalHostSlot(async () => {
    const { LocalHost } = await import("../host/local-host.ts");
    const { TOOL_TASK_RUNNER } = await import("./tasks/host-tasks.ts");
    const made = new LocalHost(config, TOOL_TASK_RUNNER);
    returnMemoryWhenSessionsEnd(made.manager);
    return made;
  });
  const persistentByDefault = config.persistent;
  const host = new RoutingHost(local, new DaemonHost(), { persistentByDefault });
  return {
    config,
    host,
    shutdown: () => host.shutdown(),
    killNow: () => local.current?.manager.killAllNow(),
  };
}

/**
 * The app of a server that must answer even when its configuration is wrong (stdio: the client
 * launched it and would otherwise see it vanish before `initialize`). The problem is logged and
 * returned by every tool call until the configuration is fixed (src/host/config-gate.ts).
 */
export function createAppReportingConfigErrors(log: Logger): App {
  try {
    return createApp();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log.error(`${err.message} (every tool call reports it until it is fixed)`);
    const gated = new ConfigGatedHost(() => createApp());
    return {
      config: defaultConfig(),
      host: gated,
      shutdown: () => gated.shutdown(),
      killNow: () => gated.killNow(),
    };
  }
}

/** Upper bound on a graceful shutdown before this process's sessions are killed outright. */
const SHUTDOWN_GRACE_MS = 3000;

/**
 * Wires the process's end to the app's: SIGTERM/SIGINT/SIGHUP (and whatever calls the returned
 * `stop`) first end this process's sessions, then close the transport (so calls the shutdown cut
 * short can still be answered: "the server is shutting down"), then exit; a shutdown that hangs is
 * cut short after SHUTDOWN_GRACE_MS. Errors that escape a request are logged, never fatal.
 */
export function handleShutdown(
  app: App,
  closeTransport: () => Promise<unknown>,
  log: Logger,
): (why: string) => Promise<void> {
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down: ${why}`);
    const forced = setTimeout(() => {
      app.killNow();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS);
    try {
      await app.shutdown();
      await closeTransport().catch((err) => log.warn(`closing the transport failed: ${String(err)}`));
    } finally {
      clearTimeout(forced);
      process.exit(0);
    }
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void stop(sig));
  process.on("exit", () => app.killNow());
  process.on("uncaughtException", (err) => log.error("uncaught exception (server keeps running)", err));
  process.on("unhandledRejection", (err) => log.error("unhandled rejection (server keeps running)", err));
  return stop;
}
