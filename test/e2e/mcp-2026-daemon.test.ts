/**
 * Tasks live where the session lives: with persistent sessions (the default) the daemon runs the
 * call and keeps the task, so a kill -9 of the MCP server mid-task loses nothing, and a new server
 * process (as after `claude --resume`) answers tasks/get for the same id with the result.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { NewEraClient } from "../helpers/mcp-2026.ts";

const INLINE_MS = 1500;
const ENV = { PTYHUB_SHELL: "/bin/bash", PTYHUB_TASK_INLINE_MS: String(INLINE_MS) };
const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "era-daemon-"));

const clients: NewEraClient[] = [];
function client(): NewEraClient {
  const c = new NewEraClient({ env: ENV, tasks: true });
  clients.push(c);
  return c;
}
afterAll(async () => {
  for (const c of clients) if (c.proc.exitCode === null && c.proc.signalCode === null) await c.close();
  await stopDaemon();
});

describe("Tasks in the daemon", () => {
  test("kill -9 of the MCP server mid-task; a new server process polls the same id to the result", async () => {
    const gate = join(dir, "go");
    const command = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo BUILD-OK`;
    const first = client();
    const started = await first.result("tools/call", { name: "term_exec", arguments: { command } });
    expect(started.resultType).toBe("task");
    expect(started.statusMessage).toContain("session main");
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    writeFileSync(gate, "");
    const second = client();
    const done = await second.untilSettled(started.taskId);
    expect(done.status).toBe("completed");
    expect(done.taskId).toBe(started.taskId);
    expect(done.result.structuredContent).toMatchObject({ session: "main", status: "done", exit_code: 0 });
    expect(done.result.structuredContent.output).toBe("BUILD-OK");
  });

  test("a guard question in the daemon on a plain call is asked with input_required", async () => {
    // A request without the tasks extension (as claude -p sends): asked the era's way, answered by
    // the retry (test/e2e/mcp-2026-questions.test.ts). With it, the question becomes the task's
    // input_required: test/e2e/task-questions.test.ts.
    // Blocked before anything is typed; were it typed, it would run in the scratch dir (no repository).
    const asked = await client().result(
      "tools/call",
      { name: "term_exec", arguments: { command: `cd ${dir} && git clean -fdx` } },
      { tasks: false },
    );
    expect(asked.resultType).toBe("input_required");
    expect(JSON.stringify(asked.inputRequests)).toContain("ptyhub guard");
  });

  test("a task is found only by its id: another id, however close, is unknown and changes nothing", async () => {
    const c = client();
    const started = await c.result("tools/call", {
      name: "term_exec",
      arguments: { command: `while [ ! -e ${join(dir, "go2")} ]; do sleep 0.05; done` },
    });
    expect(started.resultType).toBe("task");
    const guessed = `${started.taskId.slice(0, -1)}${started.taskId.endsWith("0") ? "1" : "0"}`;
    const other = client();
    const r = await other.request("tasks/get", { taskId: guessed });
    expect(r.error.message).toContain("unknown task");
    expect((await other.request("tasks/cancel", { taskId: guessed })).error.message).toContain("unknown task");
    writeFileSync(join(dir, "go2"), "");
    expect((await c.untilSettled(started.taskId)).status).toBe("completed");
  });
});
