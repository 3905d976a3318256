/**
 * What the model reads in known clients: the MCP SDK client announcing itself as Claude Code or
 * Codex gets the text form (no outputSchema, no structuredContent) and budgets clamped to what the
 * client passes on whole; any other client gets structured results with the output fields last.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { TOOLS } from "../../src/mcp/tools/all-tools.ts";
import type { Config } from "../../src/config/config.ts";

const servers: McpClient[] = [];
async function start(clientName: string, config: Partial<Config> = {}): Promise<McpClient> {
  const s = await startMcp({
    transport: "in-process",
    clientName,
    config: { persistent: false, shell: "/bin/bash", ...config },
  });
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers) await s.close();
});

function textOf(r: CallToolResult): string {
  return (r.content[0] as { text: string }).text;
}

describe("result forms by client", () => {
  test("Claude Code: tools without outputSchema, results as text only, header facts included", async () => {
    const s = await start("claude-code");
    const { tools } = await s.client.listTools();
    // The MCP Apps view's own tools are listed only to clients that declared MCP Apps.
    expect(tools.map((t) => t.name)).toEqual(TOOLS.filter((t) => !t.appOnly).map((t) => t.name));
    for (const t of tools) expect(t.outputSchema).toBeUndefined();
    const r = await s.raw("term_exec", { command: "cd /tmp && echo hi" });
    expect(r.structuredContent).toBeUndefined();
    expect(textOf(r)).toMatch(/^\[done · exit 0 · \d+ ms · via shell · cwd \/tmp\]\nhi$/);
    const e = await s.raw("term_read", { session: "nosuch" });
    expect(e.isError).toBe(true);
    expect(e.structuredContent).toBeUndefined();
    expect(textOf(e)).toMatch(/^SESSION_NOT_FOUND: .*\nhint: /);
  }, 30_000);

  test("term_read after term_exec: the history's length said as such, the exit code not told twice", async () => {
    const s = await start("claude-code");
    expect(textOf(await s.raw("term_exec", { command: "bash -c 'exit 4'" }))).toMatch(/^\[done · exit 4 · /);
    const text = textOf(await s.raw("term_read", { session: "main", wait_ms: 0 }));
    // "· 3 lines" above one line of output read as lines left out.
    expect(text).toMatch(/^\[new · state prompt · \d+ lines in history\]/);
    expect(text).not.toContain("exit 4");
  }, 30_000);

  test("Codex: max_tokens clamped to fit ~12,000 characters, and the header says so", async () => {
    const s = await start("codex-mcp-client");
    const r = await s.raw("term_exec", { command: "seq 1 100000", max_tokens: 50_000, timeout_ms: 60_000 });
    const text = textOf(r);
    expect(text.length).toBeLessThanOrEqual(12_000);
    const header = text.split("\n")[0]!;
    expect(header).toMatch(/^\[done · exit 0 · .* lines omitted: term_read mode:"history" from:\d+ to:\d+ · /);
    const note = " · max_tokens 50000 clamped to 2750: Codex passes on ~12000 characters of a result]";
    expect(header.endsWith(note)).toBe(true);
    // The tail, the part a budget keeps, arrives whole.
    expect(text.endsWith("\n99999\n100000")).toBe(true);
    // A result that fits anyway carries no note.
    const small = await s.raw("term_exec", { command: "echo small", max_tokens: 50_000 });
    expect(textOf(small)).not.toContain("clamped");
  }, 60_000);

  test("other clients: structured results, output fields last; result_form forces a form", async () => {
    const s = await start("some-programmatic-client");
    const { tools } = await s.client.listTools();
    for (const t of tools) expect(t.outputSchema?.type).toBe("object");
    const r = await s.raw("term_exec", { command: "echo hi" });
    const keys = Object.keys(r.structuredContent ?? {});
    expect(keys.at(-1)).toBe("output");
    expect(r.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "hi" });

    const forcedText = await start("some-programmatic-client", { result_form: "text" });
    expect((await forcedText.raw("term_exec", { command: "echo hi" })).structuredContent).toBeUndefined();
    const forcedStructured = await start("claude-code", { result_form: "structured" });
    const structured = await forcedStructured.raw("term_exec", { command: "echo hi" });
    expect(structured.structuredContent).toMatchObject({ output: "hi" });
  }, 60_000);
});
