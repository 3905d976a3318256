/**
 * One MCP server under test, driven over stdio by the official SDK Client, the way an agent's
 * client drives it: spawn, initialize, tools/list, tools/call. Every call is timed on the client
 * side, from the request being issued until the result is in the client's hands (the SDK
 * validates structuredContent against the listed outputSchema on the way, as real clients do).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isolatedEnv } from "./env.ts";
import { readlinkSync } from "node:fs";
import { awaitGone, cpuSeconds, killAll, processesWithEnv, pssMb, rssMb, SERVER_VAR } from "./procs.ts";

function exeOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

export interface ServerSpec {
  /** Short label used in tables ("ptyhub", "ptyai", "ptyhub (binary)"). */
  label: string;
  command: string;
  args: string[];
  cwd?: string;
  /** Extra environment on top of the isolated one. */
  env?: Record<string, string>;
  /**
   * Arguments that stop helper processes the server started and that outlive it by design
   * (ptyhub's session daemon: `daemon --stop`), run with the server's command and environment.
   */
  stopArgs?: string[];
}

export interface Called {
  ms: number;
  result: CallToolResult;
  /** content[0].text: what a model reads. */
  text: string;
}

/** Longest a single tool call may take before the harness calls it broken. */
const CALL_TIMEOUT_MS = 120_000;
/** How long a closed server gets to end its own processes before the harness kills them. */
const EXIT_GRACE_MS = 3_000;

export class McpServer {
  readonly label: string;
  readonly tag: string;
  readonly home: string;
  private readonly client: Client;
  private readonly transport: StdioClientTransport;
  private stderrTail = "";
  private closed = false;
  private readonly spec: ServerSpec;
  private readonly env: Record<string, string>;
  /** Processes the server left behind after close (and the harness then killed). */
  leftovers: string[] = [];

  private constructor(spec: ServerSpec) {
    this.label = spec.label;
    this.spec = spec;
    const iso = isolatedEnv(spec.label.replace(/[^A-Za-z0-9]+/g, "_"), spec.env);
    this.env = iso.env;
    this.tag = iso.env[SERVER_VAR]!;
    this.home = iso.home;
    this.transport = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      cwd: spec.cwd ?? iso.home,
      env: iso.env,
      stderr: "pipe",
    });
    this.transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
    });
    this.client = new Client({ name: "ptyhub-bench", version: "1.0.0" }, { capabilities: {} });
  }

  /**
   * Spawns the server, initializes and lists its tools. `startupMs` is spawn → the tools/list
   * response arriving at the transport; `clientMs` is what the SDK client then spends on it
   * (parsing, compiling the tools' output-schema validators) before listTools() resolves.
   */
  static async start(
    spec: ServerSpec,
  ): Promise<{ server: McpServer; startupMs: number; clientMs: number; tools: string[] }> {
    const server = new McpServer(spec);
    const t0 = performance.now();
    try {
      await server.client.connect(server.transport);
      // Timestamp the tools/list response as it arrives, before the client processes it.
      let answeredAt = 0;
      const handler = server.transport.onmessage;
      server.transport.onmessage = (message: JSONRPCMessage) => {
        const result = (message as { result?: { tools?: unknown } }).result;
        if (!answeredAt && result && Array.isArray(result.tools)) answeredAt = performance.now();
        handler?.(message);
      };
      const listed = await server.client.listTools(undefined, { timeout: 30_000 });
      const resolvedAt = performance.now();
      server.transport.onmessage = handler;
      const startupMs = (answeredAt || resolvedAt) - t0;
      return {
        server,
        startupMs,
        clientMs: resolvedAt - (answeredAt || resolvedAt),
        tools: listed.tools.map((t) => t.name),
      };
    } catch (err) {
      await server.close();
      throw new Error(`${spec.label} did not start: ${(err as Error).message}\n${server.stderrTail}`);
    }
  }

  get pid(): number | null {
    return this.transport.pid;
  }

  /** The server process's resident memory in MB (sessions' own processes not included). */
  rss(): number | null {
    const pid = this.pid;
    return pid === null ? null : rssMb(pid);
  }

  /**
   * RSS in MB of the server and of its helpers: processes of this server running the same
   * executable (ptyhub's session daemon is the same bun or binary). Sessions' programs (shells,
   * `yes`) are not counted.
   */
  rssAll(): { server: number | null; helpers: number; total: number | null } {
    const pid = this.pid;
    if (pid === null) return { server: null, helpers: 0, total: null };
    const server = rssMb(pid);
    const exe = exeOf(pid);
    let helpers = 0;
    if (exe) {
      for (const p of processesWithEnv(SERVER_VAR, this.tag)) {
        if (p.pid === pid || exeOf(p.pid) !== exe) continue;
        helpers += rssMb(p.pid) ?? 0;
      }
    }
    return { server, helpers, total: server === null ? null : server + helpers };
  }

  /**
   * Like rssAll, but PSS (see pssMb): the memory the server and its helpers take together, with
   * the pages they share (the one executable both run) counted once.
   */
  pssAll(): { server: number | null; helpers: number; total: number | null } {
    const pid = this.pid;
    if (pid === null) return { server: null, helpers: 0, total: null };
    const server = pssMb(pid);
    let helpers = 0;
    for (const p of this.helperPids(pid)) helpers += pssMb(p) ?? 0;
    return { server, helpers, total: server === null ? null : server + helpers };
  }

  /** Processes of this server other than itself running the same executable (ptyhub's daemon). */
  private helperPids(pid: number): number[] {
    const exe = exeOf(pid);
    if (!exe) return [];
    return processesWithEnv(SERVER_VAR, this.tag)
      .filter((p) => p.pid !== pid && exeOf(p.pid) === exe)
      .map((p) => p.pid);
  }

  /** CPU seconds used so far by the server and its helpers (the same processes as rssAll). */
  cpuAll(): number | null {
    const pid = this.pid;
    if (pid === null) return null;
    let total = cpuSeconds(pid);
    if (total === null) return null;
    const exe = exeOf(pid);
    if (exe) {
      for (const p of processesWithEnv(SERVER_VAR, this.tag)) {
        if (p.pid !== pid && exeOf(p.pid) === exe) total += cpuSeconds(p.pid) ?? 0;
      }
    }
    return total;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  async call(name: string, args: Record<string, unknown>, timeoutMs = CALL_TIMEOUT_MS): Promise<Called> {
    const t0 = performance.now();
    const result = (await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: timeoutMs,
    })) as CallToolResult;
    const ms = performance.now() - t0;
    const first = result.content?.[0];
    const text = first && first.type === "text" ? first.text : "";
    return { ms, result, text };
  }

  /** Like call, but a tool error (isError) throws with the server's message. */
  async must(name: string, args: Record<string, unknown>, timeoutMs = CALL_TIMEOUT_MS): Promise<Called> {
    const r = await this.call(name, args, timeoutMs);
    if (r.result.isError) throw new Error(`${this.label} ${name} failed: ${r.text.slice(0, 500)}`);
    return r;
  }

  /**
   * Closes the client (the SDK ends stdin, then SIGTERM, then SIGKILL), waits for every process
   * of this server (its sessions too) to end, and kills and records whatever is left.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.close();
    } catch {
      // Already gone.
    }
    if (this.spec.stopArgs) {
      try {
        Bun.spawnSync([this.spec.command, ...this.spec.args, ...this.spec.stopArgs], {
          env: this.env,
          cwd: this.home,
          stdout: "ignore",
          stderr: "ignore",
          stdin: "ignore",
          timeout: 15_000,
        });
      } catch {
        // No such verb, or it failed: the leftover sweep below ends what remains.
      }
    }
    const left = await awaitGone(SERVER_VAR, this.tag, EXIT_GRACE_MS);
    if (left.length > 0) {
      this.leftovers = left.map((p) => `${p.pid} ${p.cmd.slice(0, 80)}`);
      killAll(left);
    }
  }
}

/** structuredContent as a record (ptyhub), or {} when absent. */
export function structured(c: Called): Record<string, unknown> {
  return (c.result.structuredContent as Record<string, unknown> | undefined) ?? {};
}

/** ptyai answers with JSON in its text content. */
export function jsonText(c: Called): Record<string, unknown> {
  try {
    return JSON.parse(c.text) as Record<string, unknown>;
  } catch {
    return {};
  }
}
