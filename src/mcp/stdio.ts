/**
 * `ptyhub` with no verb: the stdio MCP server. stdout carries only the protocol. When stdin
 * closes, or on SIGTERM/SIGINT/SIGHUP, sessions hosted in this process are ended (no orphans);
 * persistent sessions keep running in the daemon.
 */
import { createAppReportingConfigErrors, handleShutdown } from "./app.ts";
import { logger } from "../log.ts";
import { createMcpServer } from "./server.ts";
import { StdioLineTransport } from "./stdio-transport.ts";
import { EraRouter } from "./era/era-router.ts";
import { NewEraServer } from "./era/new-era-server.ts";
import { clip } from "../util/quote.ts";

const log = logger("stdio");

/**
 * The MCP client's name/version (its clientInfo) and this process: read cursors key on it, the
 * audit trail shows it.
 */
function clientLabel(info: { name: string; version?: string } | undefined): string {
  return `${info?.name ?? "mcp"}${info?.version ? `/${info.version}` : ""}:${process.pid}`;
}

/** How long answers to calls interrupted by a shutdown may take to be written. */
const REPLY_FLUSH_MS = 1000;

export async function runStdioServer(): Promise<void> {
  const app = createAppReportingConfigErrors(log);
  const server = createMcpServer({
    host: app.host,
    clientId: () => clientLabel(server.getClientVersion()),
    resultForm: app.config.result_form,
    delivered: (id) => lines.delivered(id),
    // stdio: the client runs on this machine, so its human can open a loopback page.
    secretPageTtlMs: app.config.secret_page_ttl_ms,
  });
  const lines = new StdioLineTransport();
  const transport = new EraRouter(
    lines,
    (send) =>
      new NewEraServer(
        {
          host: app.host,
          clientId: clientLabel,
          resultForm: app.config.result_form,
          tasks: {
            inlineMs: app.config.task_inline_ms,
            pollIntervalMs: app.config.task_poll_interval_ms,
            ttlMs: app.config.task_ttl_ms,
          },
          secretPageTtlMs: app.config.secret_page_ttl_ms,
        },
        send,
      ),
  );
  const stop = handleShutdown(
    app,
    async () => {
      // Calls cut short by the shutdown still get their answer (the client may be reading).
      await transport.settled(REPLY_FLUSH_MS);
      await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
      await server.close();
    },
    log,
  );
  // Whatever ends the conversation (stdin closed, a transport failure) ends this process and what it owns.
  const closeResources = server.onclose;
  server.onclose = () => {
    closeResources?.();
    void stop("transport closed");
  };
  server.onerror = (err) => log.warn(clip(err.message));
  process.stdout.on("error", (err) => void stop(`stdout failed: ${err.message}`));
  process.stdin.on("end", () => void stop("stdin closed"));
  process.stdin.on("close", () => void stop("stdin closed"));
  await server.connect(transport);
}
