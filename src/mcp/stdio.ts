/**
 * `ptyhub` with no verb: the stdio MCP server. stdout carries only the protocol. When stdin
 * closes, or on SIGTERM/SIGINT/SIGHUP, sessions hosted in this process are ended (no orphans);
 * persistent sessions keep running in the daemon.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createApp, handleShutdown } from "../app.ts";
import { logger } from "../log.ts";
import { createMcpServer } from "./server.ts";

const log = logger("stdio");

export async function runStdioServer(): Promise<void> {
  const app = createApp();
  const server = createMcpServer({
    host: app.host,
    clientId: () => `${server.getClientVersion()?.name ?? "mcp"}:${process.pid}`,
  });
  const transport = new StdioServerTransport();
  const stop = handleShutdown(app, () => server.close(), log);
  process.stdin.on("end", () => void stop("stdin closed"));
  process.stdin.on("close", () => void stop("stdin closed"));
  await server.connect(transport);
}
