/**
 * Pieces of the HTTP transport tests: a real `ptyhub serve --http` process on an ephemeral
 * loopback port (its URL read from what it prints), the SDK's Streamable HTTP client against it,
 * and bookkeeping so every server, client and daemon a test starts is ended by it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  alive,
  CLI,
  REPO,
  startServer,
  stopDaemon,
  testEnv,
  waitFor,
  type Env,
  type McpServer,
} from "../daemon/helpers.ts";

export interface HttpServerProc {
  proc: ReturnType<typeof Bun.spawn>;
  pid: number;
  url: string;
  /** Everything the server printed on stdout (its banner). */
  banner: string;
  /** The token a client must send, as the server's banner says where to find it. */
  token: string;
  stderr(): string;
  /** kill -9: no goodbye to anyone. */
  kill(): Promise<void>;
  /** SIGTERM, and its exit code. */
  terminate(): Promise<number | null>;
}

/** How long a starting server may take to print its banner on a loaded 2-core machine. */
const START_TIMEOUT_MS = 20_000;

export async function startHttpServer(env: Env, args: string[] = []): Promise<HttpServerProc> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--http", "--port", "0", ...args], {
    env,
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let err = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) err += dec.decode(chunk, { stream: true });
  })();
  const reader = proc.stdout.getReader();
  const dec = new TextDecoder();
  let banner = "";
  const deadline = Date.now() + START_TIMEOUT_MS;
  // The banner ends with the origins line; the server prints nothing after it.
  while (!/^origins allowed: .*\n/m.test(banner)) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${banner}${err}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited (${await proc.exited}): ${banner}${err}`);
    banner += dec.decode(value, { stream: true });
  }
  reader.releaseLock();
  const url = /at (https?:\/\/\S+\/mcp)$/m.exec(banner)?.[1];
  if (!url) throw new Error(`no URL in the banner: ${banner}`);
  const file = /token in (\S+)>/.exec(banner)?.[1];
  const token = file ? readFileSync(file, "utf8").trim() : (env.PTYHUB_HTTP_TOKEN ?? "");
  const pid = proc.pid;
  return {
    proc,
    pid,
    url,
    banner,
    token,
    stderr: () => err,
    async kill() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
    async terminate() {
      proc.kill("SIGTERM");
      return proc.exited;
    },
  };
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

export async function connectHttp(
  url: string,
  token: string,
  name = "http-test",
  capabilities: Record<string, unknown> = {},
): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: "0" }, { capabilities });
  await client.connect(transport);
  return {
    client,
    transport,
    async close() {
      // DELETE ends the MCP session on the server, then the connection closes.
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** Tool results as the daemon tests see them (same `call`/`ok` shape), for any SDK client. */
export async function callTool(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; data: Record<string, unknown>; text: string }> {
  const r = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: Array<{ text?: string }>;
  };
  return { isError: r.isError === true, data: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? "" };
}

export async function okTool(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const r = await callTool(client, tool, args);
  if (r.isError) throw new Error(`${tool} failed: ${r.text}`);
  return r.data;
}

/** What a test started; `cleanup()` ends it all (clients, HTTP servers, stdio servers, daemons). */
export function httpFixture() {
  const clients: HttpClient[] = [];
  const servers: HttpServerProc[] = [];
  const stdio: McpServer[] = [];
  const envs: Env[] = [];
  return {
    env(extra: Env = {}): Env {
      const e = testEnv(extra);
      // Each test gets its own config beside its own state dir (token file) and daemon socket.
      e.XDG_CONFIG_HOME = join(e.XDG_STATE_HOME!, "..", "c");
      envs.push(e);
      return e;
    },
    async server(e: Env, args: string[] = []): Promise<HttpServerProc> {
      const s = await startHttpServer(e, args);
      servers.push(s);
      return s;
    },
    async client(
      s: { url: string; token: string },
      name?: string,
      capabilities?: Record<string, unknown>,
    ): Promise<HttpClient> {
      const c = await connectHttp(s.url, s.token, name, capabilities);
      clients.push(c);
      return c;
    },
    async stdio(e: Env, name = "stdio-agent"): Promise<McpServer> {
      const s = await startServer(e, name);
      stdio.push(s);
      return s;
    },
    async cleanup(): Promise<void> {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
      await Promise.allSettled(stdio.splice(0).map((s) => s.close()));
      await Promise.allSettled(
        servers.splice(0).map(async (s) => {
          if (alive(s.pid)) await s.terminate();
          await waitFor(() => !alive(s.pid), 10_000, `HTTP server ${s.pid} to exit`);
        }),
      );
      await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
    },
  };
}
