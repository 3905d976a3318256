/**
 * The one MCP test client: the official SDK client talking to a real ptyhub server, over one of
 * three transports.
 *
 * - `stdio` spawns the real server (`bun src/cli.ts`, or `command`/`args`): for tests of the
 *   stdio transport, of the process (kill -9, exit on stdin close) or of a server with its own
 *   environment.
 * - `in-process` links the SDK client to the real server object (src/mcp/server.ts over the app of
 *   src/mcp/app.ts, as src/mcp/stdio.ts builds it) through the SDK's InMemoryTransport: for tool tests
 *   where the transport is not what is tested. The daemon is still a real process; the server
 *   reads this test run's environment (test/run.ts isolates HOME/XDG/the socket per run), so it
 *   takes no `env` of its own: settings come as `config` (what PTYHUB_* variables would set).
 * - HTTP (`connectHttp`): a client of a running `ptyhub serve --http` (test/http/helpers.ts).
 *
 * Every handle has the same calls: `call` (the result, errors included), `ok` (the structured
 * result, throwing the error payload), `raw` (the SDK's result as is).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { join, resolve } from "node:path";
import { createApp } from "../../src/mcp/app.ts";
import { loadConfig, type Config } from "../../src/config/config.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { alive, waitFor } from "./wait.ts";

export const REPO = resolve(import.meta.dir, "..", "..");
export const CLI = join(REPO, "src", "cli.ts");

export type Env = Record<string, string>;

/** A tool call's default time limit: real shells on a busy 2-core machine. */
const CALL_TIMEOUT_MS = 120_000;
/** How long a killed server process may take to be gone. */
const KILL_WAIT_MS = 5000;

export interface ToolResult {
  isError: boolean;
  /** The text content, parts joined by newlines. */
  text: string;
  /** structuredContent (the error payload's wrapper when isError). */
  data: Record<string, any>;
  /** The error payload when isError. */
  error: { code: string; message: string; hint: string } | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeout?: number;
}

export interface McpClient {
  client: Client;
  transport: Transport;
  /** The server's process (stdio), or null (in-process, HTTP). */
  pid: number | null;
  /** Calls a tool; tool errors come back as a result. */
  call(name: string, args?: Record<string, unknown>, opts?: CallOptions): Promise<ToolResult>;
  /** Calls a tool; returns structuredContent, or throws an Error carrying the error payload (code, hint). */
  ok(name: string, args?: Record<string, unknown>, opts?: CallOptions): Promise<Record<string, any>>;
  /** Calls a tool and returns the SDK's result as is (any arguments, for bad-input tests). */
  raw(name: string, args: unknown, opts?: CallOptions): Promise<CallToolResult>;
  /** Every elicitation the server sent (when an `elicit` handler was given). */
  elicitations: ElicitRequest["params"][];
  /** Everything the server said: result texts, structured content, and its stderr (stdio). */
  transcript(): string;
  /** What the server wrote on stderr so far (stdio; empty otherwise). */
  stderr(): string;
  close(): Promise<void>;
  /** kill -9 of the server process (stdio only): no chance to say goodbye to anyone. */
  kill(): Promise<void>;
}

export interface McpOptions {
  transport?: "stdio" | "in-process";
  /** stdio: variables over this process's environment (undefined removes one). */
  env?: Record<string, string | undefined>;
  /** in-process: settings over the configuration this environment gives (e.g. persistent, shell). */
  config?: Partial<Config>;
  /** stdio: the server's command line (default: bun src/cli.ts). */
  command?: string;
  args?: string[];
  cwd?: string;
  /** clientInfo.name (the server picks its result form by it). */
  clientName?: string;
  capabilities?: Record<string, unknown>;
  /** Answers elicitation requests (declares the capability). */
  elicit?: (req: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
}

function makeClient(opts: McpOptions): { client: Client; elicitations: ElicitRequest["params"][] } {
  // An elicit handler declares form elicitation, unless the capabilities given already say which modes.
  const declared = opts.capabilities?.elicitation !== undefined;
  const capabilities = { ...(opts.capabilities ?? {}), ...(opts.elicit && !declared ? { elicitation: {} } : {}) };
  const client = new Client({ name: opts.clientName ?? "ptyhub-tests", version: "1.0.0" }, { capabilities });
  const elicitations: ElicitRequest["params"][] = [];
  const handler = opts.elicit;
  if (handler)
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicitations.push(req.params);
      return handler(req.params);
    });
  return { client, elicitations };
}

function handle(
  client: Client,
  transport: Transport,
  parts: {
    pid: number | null;
    elicitations: ElicitRequest["params"][];
    stderr: () => string;
    close: () => Promise<void>;
  },
): McpClient {
  const log: string[] = [];
  const raw = (name: string, args: unknown, o: CallOptions = {}) =>
    client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
      signal: o.signal,
      timeout: o.timeout ?? CALL_TIMEOUT_MS,
    }) as Promise<CallToolResult>;
  const call = async (name: string, args: Record<string, unknown> = {}, o?: CallOptions): Promise<ToolResult> => {
    const r = await raw(name, args, o);
    const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    const data = (r.structuredContent ?? {}) as Record<string, any>;
    log.push(text, JSON.stringify(data));
    return { isError: r.isError === true, text, data, error: r.isError ? (data.error ?? null) : null };
  };
  const pid = parts.pid;
  return {
    client,
    transport,
    pid,
    call,
    raw,
    elicitations: parts.elicitations,
    async ok(name, args = {}, o) {
      const r = await call(name, args, o);
      if (r.isError) throw Object.assign(new Error(r.text), r.error ?? {});
      return r.data;
    },
    transcript: () => [...log, parts.stderr()].join("\n"),
    stderr: parts.stderr,
    close: parts.close,
    async kill() {
      if (pid === null) throw new Error("kill: this server is not a process of its own");
      process.kill(pid, "SIGKILL");
      await waitFor(() => !alive(pid), KILL_WAIT_MS, `MCP server ${pid} to die`);
      await client.close().catch(() => undefined);
    },
  };
}

/** A client of a server process of its own (stdio). */
export type StdioMcp = McpClient & { pid: number; transport: StdioClientTransport };

/** Connects a client to a real ptyhub server over stdio (spawned: the default) or in-process. */
export function startMcp(opts: McpOptions & { transport: "in-process" }): Promise<McpClient>;
export function startMcp(opts?: McpOptions & { transport?: "stdio" }): Promise<StdioMcp>;
export function startMcp(opts: McpOptions = {}): Promise<McpClient> {
  return opts.transport === "in-process" ? startInProcess(opts) : startStdio(opts);
}

async function startStdio(opts: McpOptions): Promise<StdioMcp> {
  if (opts.config) throw new Error("`config` is for in-process servers: give a stdio one `env`");
  const env: Env = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: opts.command ?? process.execPath,
    args: opts.args ?? [CLI],
    env,
    stderr: "pipe",
    cwd: opts.cwd ?? REPO,
  });
  const { client, elicitations } = makeClient(opts);
  let stderr = "";
  // Read from the start: a pipe nobody drains would block a chatty server.
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("the stdio server has no process id after connecting");
  return {
    ...handle(client, transport, { pid, elicitations, stderr: () => stderr, close: () => client.close() }),
    pid,
    transport,
  };
}

/** In-process servers in this test process: each gets its own client label (read cursors key on it). */
let inProcessCount = 0;

async function startInProcess(opts: McpOptions): Promise<McpClient> {
  if (opts.env || opts.command || opts.args || opts.cwd)
    throw new Error("an in-process server runs in this process's environment: use transport 'stdio' for env/command");
  const app = createApp(loadConfig(opts.config));
  const label = `in-process-${++inProcessCount}`;
  const server = createMcpServer({
    host: app.host,
    clientId: () => `${server.getClientVersion()?.name ?? "mcp"}:${label}`,
    resultForm: app.config.result_form,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const { client, elicitations } = makeClient(opts);
  await client.connect(clientSide);
  return handle(client, clientSide, {
    pid: null,
    elicitations,
    stderr: () => "",
    async close() {
      // As the stdio server does when its client goes: this server's own sessions end with it.
      await client.close();
      await app.shutdown();
      await server.close();
    },
  });
}

/** A client of a running Streamable HTTP server (`ptyhub serve --http`), with its bearer token. */
export async function connectHttp(
  url: string,
  token: string,
  opts: Pick<McpOptions, "clientName" | "capabilities" | "elicit"> = {},
): Promise<McpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const { client, elicitations } = makeClient(opts);
  await client.connect(transport);
  return handle(client, transport, {
    pid: null,
    elicitations,
    stderr: () => "",
    async close() {
      // DELETE ends the MCP session on the server, then the connection closes.
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  });
}
