/** The real MCP SDK client driving a real ptyhub server over stdio. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";

export const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");

export interface McpHandle {
  client: Client;
  transport: StdioClientTransport;
  /** Calls a tool; returns structuredContent, or throws the error payload when isError. */
  call(
    name: string,
    args: Record<string, unknown>,
    opts?: { signal?: AbortSignal; timeout?: number },
  ): Promise<Record<string, any>>;
  /** Calls a tool and returns the raw result (for error results). */
  raw(name: string, args: unknown, opts?: { signal?: AbortSignal }): Promise<CallToolResult>;
  pid: number | null;
  close(): Promise<void>;
}

export interface StartOptions {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  capabilities?: Record<string, unknown>;
  /** clientInfo.name the client announces (the server picks its result form by it). */
  clientName?: string;
}

export async function startServer(opts: StartOptions = {}): Promise<McpHandle> {
  const transport = new StdioClientTransport({
    command: opts.command ?? process.execPath,
    args: opts.args ?? [CLI],
    env: { ...(process.env as Record<string, string>), ...opts.env },
    stderr: "pipe",
  });
  const client = new Client(
    { name: opts.clientName ?? "ptyhub-tests", version: "1.0.0" },
    { capabilities: opts.capabilities ?? {} },
  );
  await client.connect(transport);
  const raw = (name: string, args: unknown, o: { signal?: AbortSignal; timeout?: number } = {}) =>
    client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
      signal: o.signal,
      timeout: o.timeout ?? 120_000,
    }) as Promise<CallToolResult>;
  return {
    client,
    transport,
    pid: transport.pid,
    raw,
    async call(name, args, o) {
      const r = await raw(name, args, o);
      if (r.isError)
        throw Object.assign(
          new Error((r.content[0] as { text: string }).text),
          (r.structuredContent as { error: object }).error,
        );
      return r.structuredContent as Record<string, any>;
    },
    async close() {
      await client.close();
    },
  };
}

/** Stops the daemon that persistent sessions started (same environment as the servers above). */
export async function stopDaemon(env: Record<string, string> = {}): Promise<void> {
  const proc = Bun.spawn([process.execPath, CLI, "daemon", "--stop"], {
    env: { ...(process.env as Record<string, string>), ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  await proc.exited;
}
