/**
 * term_read answers that end where the command ended (issue 36 items 1 and 2), through the real
 * MCP client and server on a real PTY: an `until` match close before the command's end carries
 * the end (exit code, state prompt), and a read that ends at the shell's prompt leaves the prompt
 * out, as term_exec does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";

let server: McpClient;

beforeAll(async () => {
  server = await startMcp({ transport: "in-process", config: { persistent: false, shell: "/bin/bash" } });
});
afterAll(() => server.close());

/**
 * The output without the echo of the command line: term_exec answered `running` 1 ms after typing
 * it, before or after the echo was parsed, so a read may start with it.
 */
function afterEcho(output: string, command: string): string {
  return output.startsWith(`${command}\n`) ? output.slice(command.length + 1) : output;
}

async function openShell(name: string): Promise<void> {
  await server.ok("term_open", { name });
}

describe.if(process.platform === "linux")("term_read ends where the command ended", () => {
  test("until a line printed just before the end: the exit code, state prompt, no prompt line", async () => {
    await openShell("u1");
    // The line comes 50 ms before the end: a read that returned at the match had no exit code.
    const command = "sleep 0.3; echo DONE; sleep 0.05; (exit 3)";
    const exec = await server.ok("term_exec", { session: "u1", command, timeout_ms: 1 });
    expect(exec.status).toBe("running");
    const r = await server.ok("term_read", { session: "u1", until: "DONE", wait_ms: 20_000 });
    expect(r.via).toBe("until");
    expect(r.matched).toBe("DONE");
    expect(r.exit_code).toBe(3);
    expect(r.state).toBe("prompt");
    expect(afterEcho(r.output, command)).toBe("DONE");
  }, 60_000);

  test("until the last line of the command: never state reading or running", async () => {
    await openShell("u2");
    for (let i = 0; i < 3; i++) {
      const command = `sleep 0.2; echo DONE${i}; false`;
      await server.ok("term_exec", { session: "u2", command, timeout_ms: 1 });
      const r = await server.ok("term_read", { session: "u2", until: `DONE${i}`, wait_ms: 20_000 });
      expect(r.exit_code).toBe(1);
      expect(r.state).toBe("prompt");
      expect(afterEcho(r.output, command)).toBe(`DONE${i}`);
    }
  }, 60_000);

  test("new after the command ended: its output without the prompt", async () => {
    await openShell("n1");
    const command = "sleep 0.5; echo one; echo two";
    await server.ok("term_exec", { session: "n1", command, timeout_ms: 1 });
    // Barrier: the shell reports the command started, then done (term_list moves no read cursor).
    const state = async () =>
      (await server.ok("term_list", {})).sessions.find((s: { session: string }) => s.session === "n1")?.state;
    await waitFor(async () => (await state()) === "running", 20_000, "the command to start");
    await waitFor(async () => (await state()) === "prompt", 20_000, "the command to end");
    const r = await server.ok("term_read", { session: "n1", mode: "new" });
    expect(afterEcho(r.output, command)).toBe("one\ntwo");
    expect(r.exit_code).toBe(0);
    // The prompt was read with it: the next read has nothing new.
    const again = await server.ok("term_read", { session: "n1", mode: "new", wait_ms: 100 });
    expect(again.output).toBe("");
  }, 60_000);

  test("a background job's line printed at the prompt is output: kept", async () => {
    await openShell("bg");
    await server.ok("term_exec", { session: "bg", command: "(sleep 0.3; echo bg-36) &" });
    const r = await server.ok("term_read", { session: "bg", until: "bg-36", wait_ms: 20_000 });
    expect(r.matched).toBe("bg-36");
    expect(r.output).toContain("bg-36");
  }, 60_000);
});
