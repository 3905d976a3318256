/**
 * `ptyhub` with no verb: the stdio MCP server. stdout carries only the protocol. When stdin
 * closes, or on SIGTERM/SIGINT/SIGHUP, sessions hosted in this process are ended (no orphans);
 * persistent sessions keep running in the daemon.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadConfig } from "../config.ts";
import { LocalHost } from "../session/host.ts";
import { DaemonHost } from "../daemon/host.ts";
import { RoutingHost } from "../daemon/routing.ts";
import { logger } from "../log.ts";
import { createMcpServer } from "./server.ts";

const log = logger("stdio");

/** Upper bound on a graceful shutdown before sessions are killed outright. */
const SHUTDOWN_GRACE_MS = 3000;

export async function runStdioServer(): Promise<void> {
  const config = loadConfig();
  // Persistent sessions (the default) live in the daemon and survive this process; the rest here.
  const local = new LocalHost(config);
  const host = new RoutingHost(local, new DaemonHost(), { persistentByDefault: config.persistent });
  const server = createMcpServer({
    host,
    clientId: () => `${server.getClientVersion()?.name ?? "mcp"}:${process.pid}`,
    resultForm: config.result_form,
  });
  const transport = new StdioServerTransport();

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down: ${why}`);
    const forced = setTimeout(() => {
      local.manager.killAllNow();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS);
    try {
      await host.shutdown();
      await server.close().catch(() => undefined);
    } finally {
      clearTimeout(forced);
      process.exit(0);
    }
  };
  process.stdin.on("end", () => void stop("stdin closed"));
  process.stdin.on("close", () => void stop("stdin closed"));
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void stop(sig));
  process.on("exit", () => local.manager.killAllNow());
  process.on("uncaughtException", (err) => log.error("uncaught exception (server keeps running)", err));
  process.on("unhandledRejection", (err) => log.error("unhandled rejection (server keeps running)", err));

  await server.connect(transport);
}
