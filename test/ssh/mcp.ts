/**
 * Drives the real MCP server (`bun src/cli.ts`) with the official SDK client, optionally with an
 * elicitation handler standing in for the human. Everything the server says (results and stderr
 * logs) is kept, so tests can check that a secret never appears anywhere.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";

const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");

export interface CallResult {
  isError: boolean;
  text: string;
  data: Record<string, any>;
  error: { code: string; message: string; hint: string } | null;
}

export interface Mcp {
  call(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<CallResult>;
  /** Every text the server produced: result texts, structured content, stderr. */
  transcript(): string;
  elicitations: ElicitRequest["params"][];
  close(): Promise<void>;
}

export interface McpOptions {
  env?: Record<string, string | undefined>;
  /** Answers elicitation requests; without it the client does not declare the capability. */
  elicit?: (req: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
  /** The client's capabilities; default: elicitation (forms) when `elicit` is given. */
  capabilities?: Record<string, unknown>;
}

export async function startMcp(opts: McpOptions = {}): Promise<Mcp> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, PTYHUB_LOG_LEVEL: "debug", ...opts.env }))
    if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({ command: "bun", args: [CLI], env, stderr: "pipe" });
  let stderr = "";
  const log: string[] = [];
  const client = new Client(
    { name: "ptyhub-ssh-test", version: "0" },
    { capabilities: opts.capabilities ?? (opts.elicit ? { elicitation: {} } : {}) },
  );
  const elicitations: ElicitRequest["params"][] = [];
  if (opts.elicit) {
    const handler = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      elicitations.push(req.params);
      return handler(req.params);
    });
  }
  await client.connect(transport);
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  return {
    elicitations,
    async call(name, args, timeoutMs = 60_000) {
      const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
        structuredContent?: Record<string, any>;
      };
      const text = r.content.map((c) => c.text).join("\n");
      const data = r.structuredContent ?? {};
      log.push(text, JSON.stringify(data));
      return { isError: r.isError === true, text, data, error: r.isError ? (data.error ?? null) : null };
    },
    transcript() {
      return [...log, stderr].join("\n");
    },
    async close() {
      await client.close();
    },
  };
}
