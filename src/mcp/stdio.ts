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

/** The MCP client's name/version (its clientInfo) and this process: read cursors key on it, the audit trail shows it. */
function clientLabel(info: { name: string; version?: string } | undefined): string {
  return `${info?.name ?? "mcp"}${info?.version ? `/${info.version}` : ""}:${process.pid}`;
}

export async function runStdioServer(): Promise<void> {
  const app = createApp();
  const server = createMcpServer({
    host: app.host,
    clientId: () => clientLabel(server.getClientVersion()),
  });
  const transport = new StdioServerTransport();
  const stop = handleShutdown(app, () => server.close(), log);
  process.stdin.on("end", () => void stop("stdin closed"));
  process.stdin.on("close", () => void stop("stdin closed"));
  await server.connect(transport);
}
