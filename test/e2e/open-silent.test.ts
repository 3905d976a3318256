/**
 * term_open of a program that prints nothing and neither reads the terminal nor works (issue 36
 * item 7): where the kernel says so (local PTYs on Linux), the answer comes at once, `running`,
 * with the reason, not after open's 15 s limit. Through the real MCP client and server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

/** Far below open's limit (15 s) and far above the answer's 1 s, for a loaded machine. */
const PROMPT_ANSWER_MS = 5000;

let server: McpClient;

beforeAll(async () => {
  server = await startMcp({ transport: "in-process", clientName: "claude-code", config: { persistent: false } });
});
afterAll(() => server.close());

describe.if(process.platform === "linux")("term_open of a silent program", () => {
  test("sleep 3; echo late: state running at once, saying why; its output comes later", async () => {
    const t0 = Date.now();
    const r = await server.call("term_open", { name: "quiet", command: "sleep 3; echo late" });
    const took = Date.now() - t0;
    expect(r.isError).toBe(false);
    const header = r.text.split("\n")[0]!;
    expect(header).toContain("state running");
    expect(header).toContain("via timeout");
    expect(r.text).toContain("printed nothing");
    expect(took).toBeLessThan(PROMPT_ANSWER_MS);
    const late = await server.call("term_read", { session: "quiet", until: "late", wait_ms: 30_000 });
    expect(late.text).toContain('via until · matched "late"');
    await server.ok("term_close", { session: "quiet" });
  }, 60_000);

  test("a program that prints after a silent start is still waited for while it works", async () => {
    // On a CPU for 1–2 s (past the 0.7 s an idle program is given), then a prompt: it works, so
    // it is waited for.
    const script = "while [ $SECONDS -lt 2 ]; do :; done; printf 'ready> '; read x";
    const r = await server.call("term_open", { name: "busy", command: "bash", args: ["-c", script] });
    expect(r.text.split("\n")[0]).toContain("state prompt");
    await server.ok("term_close", { session: "busy" });
  }, 60_000);
});
