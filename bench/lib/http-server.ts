/**
 * ptyhub served over Streamable HTTP (`ptyhub serve --http`), driven by the official SDK Client
 * with its StreamableHTTPClientTransport, in an isolated environment like every bench server.
 * `call` has McpServer's shape, so the same shell helpers time it.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isolatedEnv } from "./env.ts";
import type { Called } from "./mcp.ts";
import { awaitGone, killAll, SERVER_VAR } from "./procs.ts";

/** How long `serve` may take to print its banner. */
const START_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 120_000;
const EXIT_GRACE_MS = 3_000;

export class HttpMcpServer {
  leftovers: string[] = [];
  private closed = false;

  private constructor(
    readonly label: string,
    private readonly proc: ReturnType<typeof Bun.spawn>,
    private readonly client: Client,
    private readonly cli: string,
    private readonly env: Record<string, string>,
    private readonly home: string,
  ) {}

  /** Starts `bun CLI serve --http --port 0` and connects a client to the URL it prints. */
  static async start(label: string, cli: string, extraEnv: Record<string, string> = {}): Promise<HttpMcpServer> {
    const { env, home } = isolatedEnv(label.replace(/[^A-Za-z0-9]+/g, "_"), extraEnv);
    const proc = Bun.spawn(["bun", cli, "serve", "--http", "--port", "0"], {
      env,
      cwd: home,
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
    });
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    let banner = "";
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!/^origins allowed: .*\n/m.test(banner)) {
      const { value, done } = await reader.read();
      if (done || Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`${label} did not start: ${banner}`);
      }
      banner += dec.decode(value, { stream: true });
    }
    reader.releaseLock();
    const url = /at (https?:\/\/\S+\/mcp)$/m.exec(banner)?.[1];
    const tokenFile = /token in (\S+)>/.exec(banner)?.[1];
    if (!url || !tokenFile) throw new Error(`${label}: unexpected banner: ${banner}`);
    const token = readFileSync(tokenFile, "utf8").trim();
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "ptyhub-bench", version: "1.0.0" }, { capabilities: {} });
    await client.connect(transport);
    await client.listTools(undefined, { timeout: 30_000 });
    return new HttpMcpServer(label, proc, client, cli, env, home);
  }

  async call(name: string, args: Record<string, unknown>, timeoutMs = CALL_TIMEOUT_MS): Promise<Called> {
    const t0 = performance.now();
    const result = (await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: timeoutMs,
    })) as CallToolResult;
    const ms = performance.now() - t0;
    const first = result.content?.[0];
    return { ms, result, text: first && first.type === "text" ? first.text : "" };
  }

  async must(name: string, args: Record<string, unknown>, timeoutMs = CALL_TIMEOUT_MS): Promise<Called> {
    const r = await this.call(name, args, timeoutMs);
    if (r.result.isError) throw new Error(`${this.label} ${name} failed: ${r.text.slice(0, 500)}`);
    return r;
  }

  /** Closes the client, SIGTERMs the server, stops its daemon, and kills whatever is left. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
    this.proc.kill("SIGTERM");
    await this.proc.exited;
    Bun.spawnSync(["bun", this.cli, "daemon", "--stop"], {
      env: this.env,
      cwd: this.home,
      stdout: "ignore",
      stderr: "ignore",
      stdin: "ignore",
      timeout: 15_000,
    });
    const left = await awaitGone(SERVER_VAR, this.env[SERVER_VAR]!, EXIT_GRACE_MS);
    if (left.length > 0) {
      this.leftovers = left.map((p) => `${p.pid} ${p.cmd.slice(0, 80)}`);
      killAll(left);
    }
  }
}
