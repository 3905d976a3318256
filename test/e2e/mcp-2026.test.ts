/**
 * The 2026-07-28 protocol era over stdio, against `bun src/cli.ts`: server/discover, stateless
 * requests, subscriptions/listen, and long tool calls as MCP Tasks (SEP-2663), with real shells.
 * Sessions are in-process here (PTYHUB_PERSISTENT=0); the inline window is short so tests need no
 * long commands: a command outlives it by waiting for a file the test creates.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { NewEraClient } from "../helpers/mcp-2026.ts";

/** Short, so a command waiting on a file is surely past it, and quick ones still answer inline. */
const INLINE_MS = 1500;
const ENV = { PTYHUB_SHELL: "/bin/bash", PTYHUB_PERSISTENT: "0", PTYHUB_TASK_INLINE_MS: String(INLINE_MS) };
const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "era-"));

let client: NewEraClient;
let tasksClient: NewEraClient;
beforeAll(() => {
  client = new NewEraClient({ env: ENV });
  tasksClient = new NewEraClient({ env: ENV, tasks: true });
});
afterAll(async () => {
  await client.close();
  await tasksClient.close();
});

/** A command that runs until the test creates `name` in the scratch dir, then prints BUILD-OK. */
function gated(name: string): { command: string; release: () => void } {
  const file = join(dir, name);
  return {
    command: `while [ ! -e ${file} ]; do sleep 0.05; done; echo BUILD-OK`,
    release: () => writeFileSync(file, ""),
  };
}

function text(result: Record<string, any>): string {
  return result.content[0]!.text;
}

/** A result with its timing taken out, for comparing two runs of one command. */
function timeless(result: Record<string, any>): Record<string, any> {
  const { duration_ms: _d, ...structured } = result.structuredContent;
  return { structured, text: text(result).replace(/ · \d+ ms/, " · N ms") };
}

describe("2026-07-28 era", () => {
  test("server/discover: versions, capabilities with the tasks extension, serverInfo in _meta, caching", async () => {
    const r = await client.result("server/discover");
    expect(r.resultType).toBe("complete");
    expect(r.supportedVersions).toEqual(["2026-07-28"]);
    expect(r.capabilities.tools).toEqual({ listChanged: true });
    expect(r.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
    expect(r.capabilities.extensions).toEqual({ "io.modelcontextprotocol/tasks": {} });
    expect(r._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "ptyhub" });
    expect(r.ttlMs).toBe(0);
    expect(r.cacheScope).toBe("private");
  });

  test("stateless tools/list and tools/call without initialize, marked resultType complete", async () => {
    const list = await client.result("tools/list");
    expect(list.resultType).toBe("complete");
    expect(list.cacheScope).toBe("private");
    expect(list.tools.map((t: { name: string }) => t.name)).toContain("term_exec");
    const call = await client.result("tools/call", { name: "term_exec", arguments: { command: "echo hi" } });
    expect(call.resultType).toBe("complete");
    expect(call.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "hi", via: "shell" });
  });

  test("the client's identity comes from each request's _meta: Claude Code gets the text form", async () => {
    const claude = new NewEraClient({ env: ENV, clientName: "claude-code" });
    try {
      const list = await claude.result("tools/list");
      expect(list.tools[0].outputSchema).toBeUndefined();
      const call = await claude.result("tools/call", { name: "term_exec", arguments: { command: "echo hi" } });
      expect(call.structuredContent).toBeUndefined();
      expect(text(call)).toStartWith("[done · exit 0");
    } finally {
      await claude.close();
    }
  });

  test("without the tasks extension a long call is answered inline, as today", async () => {
    const g = gated("inline-long");
    const answer = client.request("tools/call", { name: "term_exec", arguments: { command: g.command } });
    // Past the window: the answer is still owed, not a task.
    const early = await Promise.race([answer, Bun.sleep(INLINE_MS * 2).then(() => null)]);
    expect(early).toBeNull();
    g.release();
    const r = (await answer).result;
    expect(r.resultType).toBe("complete");
    expect(r.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "BUILD-OK" });
  });

  test("term_secret and a guard question from a client that offers elicitation ask with input_required", async () => {
    // The whole exchange (retry with inputResponses): test/e2e/mcp-2026-questions.test.ts.
    await client.result("tools/call", { name: "term_exec", arguments: { command: "true" } });
    const secret = await client.result("tools/call", { name: "term_secret", arguments: { session: "main" } });
    expect(secret.resultType).toBe("input_required");
    // Blocked before anything is typed; were it typed, it would run in the scratch dir (no repository).
    const guard = await client.result("tools/call", {
      name: "term_exec",
      arguments: { command: `cd ${dir} && git clean -fdx` },
    });
    expect(guard.resultType).toBe("input_required");
  });

  test("errors: unknown method, unknown task, unsupported protocol version, bad params", async () => {
    expect((await client.request("prompts/list")).error.code).toBe(-32601);
    const unknown = await client.request("tasks/get", { taskId: "nope" });
    expect(unknown.error.code).toBe(-32602);
    expect(unknown.error.message).toContain("unknown task");
    const missing = await client.request("tasks/get", {});
    expect(missing.error.message).toContain("taskId");
    const versioned = await client.raw({
      jsonrpc: "2.0",
      id: "v",
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    });
    expect(versioned.error.code).toBe(-32602);
    expect(versioned.error.data.supported).toEqual(["2026-07-28"]);
    // Nothing broke: the next request is answered.
    expect(await client.result("ping")).toEqual({ resultType: "complete" });
  });
});

describe("subscriptions/listen", () => {
  test("acknowledged, held open; list changes arrive tagged with the subscription, nothing untagged", async () => {
    const listener = new NewEraClient({ env: ENV });
    try {
      const answered = listener.request(
        "subscriptions/listen",
        { notifications: { resourcesListChanged: true } },
        {
          id: "listen-1",
        },
      );
      const ack = await listener.notification((m) => m.method === "notifications/subscriptions/acknowledged");
      expect(ack.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("listen-1");
      expect(ack.params.notifications.resourcesListChanged).toBe(true);
      await listener.result("tools/call", { name: "term_open", arguments: { name: "sub1" } });
      const changed = await listener.notification((m) => m.method === "notifications/resources/list_changed");
      expect(changed.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("listen-1");
      // The 2025-11-25 server's own, untagged notifications are not sent to a client that never initialized.
      expect(listener.notifications.every((m) => m.params?._meta)).toBe(true);
      // Held open until the server ends, then answered.
      expect(await Promise.race([answered.then(() => "answered"), Bun.sleep(200).then(() => "open")])).toBe("open");
      await listener.close();
      expect((await answered).result).toEqual({ resultType: "complete" });
    } finally {
      await listener.close();
    }
  });
});

describe("Tasks", () => {
  test("a call past the window becomes a task: working with a status line, then exactly the inline result", async () => {
    const g = gated("task-1");
    const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: g.command } });
    expect(first.resultType).toBe("task");
    expect(first.status).toBe("working");
    expect(first.statusMessage).toContain("session main");
    expect(first.pollIntervalMs).toBe(1000);
    expect(first.ttlMs).toBeGreaterThan(0);
    expect(Date.parse(first.createdAt)).toBeGreaterThan(0);
    const polled = await tasksClient.result("tasks/get", { taskId: first.taskId });
    expect(polled.status).toBe("working");
    const status = /^term_exec in session main, \d+ s: (.+)$/.exec(polled.statusMessage);
    expect(status).not.toBeNull();
    const lastLine = status![1]!.trim();
    // The session's last screen line: the command's echo, or only its tail where the line wrapped.
    expect(lastLine.includes("while [ ! -e") || g.command.endsWith(lastLine)).toBe(true);
    g.release();
    const done = await tasksClient.untilSettled(first.taskId);
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "BUILD-OK" });
    // The same command, answered inline (its file exists now): the same result but for the timing.
    const inline = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: g.command } });
    expect(inline.resultType).toBe("complete");
    expect(timeless(done.result)).toEqual(timeless(inline));
  });

  test("a quick call declaring the extension is answered inline", async () => {
    const r = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: "echo quick" } });
    expect(r.resultType).toBe("complete");
    expect(r.structuredContent.output).toBe("quick");
  });

  test("a yes/no prompt becomes input_required; tasks/update types the answer and the task completes", async () => {
    const command = `read -p 'Continue? [y/N] ' a; echo "answer=$a"`;
    const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command } });
    expect(first.resultType).toBe("task");
    const asked = first.status === "input_required" ? first : await tasksClient.untilSettled(first.taskId);
    expect(asked.status).toBe("input_required");
    const q = asked.inputRequests.answer;
    expect(q.method).toBe("elicitation/create");
    expect(q.params.mode).toBe("form");
    expect(q.params.message).toContain("Continue? [y/N]");
    expect(q.params.requestedSchema.properties.answer.type).toBe("boolean");
    // The task's status says a human is asked (Claude Code's task panel shows it).
    expect(asked.statusMessage).toBe(
      'a human is being asked for a yes/no answer at the prompt in session main: "Continue? [y/N]"',
    );
    const upd = await tasksClient.result("tasks/update", {
      taskId: first.taskId,
      inputResponses: { answer: { action: "accept", content: { answer: true } } },
    });
    expect(upd.resultType).toBe("complete");
    const done = await tasksClient.untilSettled(first.taskId);
    expect(done.status).toBe("completed");
    expect(text(done.result)).toContain("answer=y");
    // The model learns from the result that a human answered on the way.
    expect(text(done.result)).toMatch(/^\[[^\]\n]* · a human was asked and answered after \d+ s\]\n/);
    expect(done.result.structuredContent.exit_code).toBe(0);
  });

  test("a password prompt: the answer is typed as a secret and never appears in the result", async () => {
    const command = `read -s -p 'Password: ' pw; echo; echo "len=\${#pw}"`;
    const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command } });
    const asked = first.status === "input_required" ? first : await tasksClient.untilSettled(first.taskId);
    expect(asked.status).toBe("input_required");
    expect(asked.inputRequests.answer.params.message).toContain("password");
    expect(asked.statusMessage).toBe(
      'a human is being asked for the password at the prompt in session main: "Password:"',
    );
    await tasksClient.result("tasks/update", {
      taskId: first.taskId,
      inputResponses: { answer: { action: "accept", content: { answer: "hunter22" } } },
    });
    const done = await tasksClient.untilSettled(first.taskId);
    expect(done.status).toBe("completed");
    expect(text(done.result)).toContain("len=8");
    expect(JSON.stringify(done)).not.toContain("hunter22");
  });

  test("tasks/update on a task that asks nothing is refused and changes nothing", async () => {
    const g = gated("task-upd");
    const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: g.command } });
    const r = await tasksClient.request("tasks/update", { taskId: first.taskId, inputResponses: {} });
    expect(r.error.code).toBe(-32602);
    expect(r.error.message).toContain("not waiting for input");
    expect((await tasksClient.result("tasks/get", { taskId: first.taskId })).status).toBe("working");
    g.release();
    expect((await tasksClient.untilSettled(first.taskId)).status).toBe("completed");
  });

  test("tasks/cancel sends ctrl+c to the command and says so; the session takes the next command", async () => {
    const marker = join(dir, "not-interrupted");
    const command = `sleep 60; touch ${marker}`;
    const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command } });
    expect(first.resultType).toBe("task");
    const cancelled = await tasksClient.result("tasks/cancel", { taskId: first.taskId });
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.statusMessage).toContain("ctrl+c");
    expect((await tasksClient.result("tasks/get", { taskId: first.taskId })).status).toBe("cancelled");
    const next = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: "echo after" } });
    expect(next.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "after" });
    // The interrupted `sleep 60; touch` never reached its touch.
    expect(existsSync(marker)).toBe(false);
  });

  test("a 2025-11-25 client next to it is unchanged: initialize, inline results", async () => {
    let old: StdioMcp | null = null;
    try {
      old = await startMcp({ env: ENV });
      const r = await old.raw("term_exec", { command: "echo old" });
      expect(r).not.toHaveProperty("resultType");
      expect(r.structuredContent).toMatchObject({ status: "done", output: "old" });
    } finally {
      await old?.close();
    }
  });
});
