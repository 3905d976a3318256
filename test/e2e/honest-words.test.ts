/**
 * What the model reads says what happened (issue 36 item 5), through the real MCP client and
 * server on real PTYs: a client that refused a question by itself is not "the human"; a session
 * not found lists the sessions there are; a hint follows the output; term_close's own hang-up is
 * named as such.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startMcp, type McpClient, type McpOptions } from "../helpers/mcp-client.ts";
import { UNASKED_ANSWER_MS } from "../../src/mcp/unasked.ts";

const servers: McpClient[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function server(opts: Omit<McpOptions, "transport">): Promise<McpClient> {
  const s = await startMcp({ ...opts, transport: "in-process" });
  servers.push(s);
  return s;
}

/** A line the guard stops (rule rm-recursive-root); `echo` keeps it harmless if it ever ran. */
const GUARDED = "rm -rf /etc";

describe.if(process.platform === "linux")("honest words", () => {
  test("a client that declines at once: nobody was asked, not 'the human did not confirm'", async () => {
    const s = await server({
      clientName: "codex-mcp-client",
      config: { persistent: false, shell: "/bin/bash" },
      elicit: () => ({ action: "decline" }),
    });
    // Codex reads the text form: `CODE: message`, then the hint.
    const r = await s.call("term_exec", { command: GUARDED });
    expect(r.isError).toBe(true);
    expect(r.text).toStartWith("BLOCKED_BY_GUARD: ");
    expect(r.text).toContain('Nobody was asked: Codex answered "decline"');
    expect(r.text).not.toContain("the human did not confirm");
    expect(r.text).toContain("ptyhub attach");
    // term_secret too.
    await s.call("term_open", { name: "pw" });
    const secret = await s.call("term_secret", { session: "pw" });
    expect(secret.text).toStartWith("ELICITATION_UNSUPPORTED: no secret was typed: nobody was asked");
  }, 60_000);

  test("a human who takes the time to read and declines: the human did not confirm", async () => {
    const s = await server({
      config: { persistent: false, shell: "/bin/bash" },
      // A human reads the question before answering: longer than a client's own reflex.
      elicit: async () => {
        await Bun.sleep(UNASKED_ANSWER_MS * 2);
        return { action: "decline" };
      },
    });
    const r = await s.call("term_exec", { command: GUARDED });
    expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(r.error?.message).toContain("the human did not confirm");
  }, 60_000);

  test("session not found, in-process sessions: the hint lists them", async () => {
    const s = await server({ config: { persistent: false, shell: "/bin/bash" } });
    await s.ok("term_exec", { command: "true" });
    await s.ok("term_open", { name: "py", command: "python3", args: ["-q"] });
    for (const [tool, args] of [
      ["term_read", { session: "nosuch" }],
      ["term_close", { session: "nosuch" }],
    ] as const) {
      const r = await s.call(tool, args);
      expect(r.error?.code).toBe("SESSION_NOT_FOUND");
      expect(r.error?.hint).toContain("sessions: main, py");
    }
  }, 60_000);

  test("a timeout's hint comes after the output, not between it and the header", async () => {
    const s = await server({
      clientName: "claude-code",
      config: { persistent: false, shell: "/bin/bash" },
    });
    await s.call("term_open", { name: "t" });
    const r = await s.call("term_exec", { session: "t", command: "echo out-36; sleep 30", timeout_ms: 3000 });
    const lines = r.text.split("\n");
    expect(lines[0]).toStartWith("[still running after");
    expect(lines[1]).toBe("out-36");
    expect(lines[2]).toStartWith("hint: It keeps running");
    await s.call("term_send", { session: "t", keys: ["ctrl+c"] });
  }, 60_000);

  test("term_close's own hang-up is named: exit 129 (SIGHUP sent by term_close)", async () => {
    const s = await server({
      clientName: "claude-code",
      config: { persistent: false, shell: "/bin/bash" },
    });
    await s.call("term_open", { name: "py", command: "python3", args: ["-q"] });
    const r = await s.call("term_close", { session: "py" });
    expect(r.text).toBe("[closed py · exit 129 (SIGHUP sent by term_close)]");
    // A program that ended by itself: its own exit code, nothing sent.
    await s.call("term_open", { name: "gone", command: "bash", args: ["-c", "exit 5"] });
    const gone = await s.call("term_close", { session: "gone" });
    expect(gone.text).toBe("[closed gone · exit 5]");
  }, 60_000);
});
