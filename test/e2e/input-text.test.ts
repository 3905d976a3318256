/**
 * What a model reads (the text form, as Claude Code gets it) when a program waits for input or
 * starts slowly (issue 22 items 2 and 5): every result that waited says why it stopped, and a
 * program blocked reading the terminal says so at once, through the real MCP client and server.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

let server: McpClient | null = null;
afterAll(async () => {
  await server?.close();
});

function textOf(r: CallToolResult): string {
  return (r.content[0] as { text: string }).text;
}

describe.if(process.platform === "linux")("the text form of waiting for input", () => {
  test("term_exec cat: waiting for input (reading) via tty; term_open says its via", async () => {
    server = await startMcp({
      clientName: "claude-code",
      transport: "in-process",
      config: { persistent: false, shell: "/bin/bash" },
    });
    const exec = await server.raw("term_exec", { command: "cat", timeout_ms: 20_000 });
    expect(textOf(exec)).toMatch(/^\[waiting for input \(reading\) · \d+ ms · via tty · cwd [^\]]+\]$/);
    await server.raw("term_send", { session: "main", keys: ["ctrl+d"] });
    // A silent start shorter than the 0.7 s after which a sleeping program is answered `running`
    // (issue 36 item 7), then a read of the terminal: said exactly, via tty.
    const open = await server.raw("term_open", { name: "late", command: "bash", args: ["-c", "sleep 0.2; exec cat"] });
    const header = textOf(open).split("\n")[0]!;
    expect(header).toContain("· state reading · via tty");
    await server.raw("term_close", { session: "late" });
  }, 60_000);
});
