/**
 * Questions for the human in a call that runs as an MCP Task (issue 26). The 2026-07-28 era has no
 * server-initiated elicitation: a guard question becomes the task's `input_required`
 * (`inputRequests`) and the `tasks/update` answer decides (before, the guard refused at once,
 * "Nobody was asked"). A password prompt, for a client that offers URL-mode elicitation, is asked
 * on ptyhub's one-time loopback page, so the password never passes through `tasks/update`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { NewEraClient } from "../helpers/mcp-2026.ts";
import { stopDaemon } from "../helpers/daemon.ts";

const ENV = { PTYHUB_SHELL: "/bin/bash", PTYHUB_PERSISTENT: "0", PTYHUB_TASK_INLINE_MS: "1500" };
const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "task-guard-"));

let tasksClient: NewEraClient;
beforeAll(() => {
  tasksClient = new NewEraClient({ env: ENV, tasks: true });
});
afterAll(async () => {
  await tasksClient.close();
});

/** A scratch SQLite database holding table `t`. */
function database(name: string): string {
  const db = join(dir, `${name}.db`);
  const made = Bun.spawnSync(["sqlite3", db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"]);
  expect(made.exitCode).toBe(0);
  return db;
}

function tables(db: string): string {
  return Bun.spawnSync(["sqlite3", db, ".tables"]).stdout.toString().trim();
}

/** Calls term_exec with a line the guard stops; returns the task id and its question. */
async function askedTask(
  db: string,
): Promise<{ taskId: string; question: Record<string, any>; statusMessage: string }> {
  // Named from its directory: a database file under /tmp is a scratch one, which the guard lets be.
  const command = `cd ${dirname(db)} && echo 'DROP TABLE t' | sqlite3 ${basename(db)} && echo dropped-ok`;
  const first = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command } });
  expect(first.resultType).toBe("task");
  const asked = first.status === "input_required" ? first : await tasksClient.untilSettled(first.taskId);
  expect(asked.status).toBe("input_required");
  return { taskId: first.taskId, question: asked.inputRequests.answer, statusMessage: asked.statusMessage };
}

describe("guard questions as task inputRequests", () => {
  test("the question is the task's input request; yes runs the command", async () => {
    const db = database("yes");
    const { taskId, question, statusMessage } = await askedTask(db);
    // Claude Code's task panel shows the status: it says a human is asked, and what.
    expect(statusMessage).toStartWith("a human is being asked: ptyhub guard: the agent wants to type this into");
    expect(question.method).toBe("elicitation/create");
    expect(question.params.mode).toBe("form");
    expect(question.params.message).toContain("ptyhub guard");
    expect(question.params.message).toContain("DROP TABLE");
    expect(question.params.requestedSchema.properties.allow.type).toBe("boolean");
    expect(tables(db)).toBe("t"); // nothing ran while asking
    await tasksClient.result("tasks/update", {
      taskId,
      inputResponses: { answer: { action: "accept", content: { allow: true } } },
    });
    const done = await tasksClient.untilSettled(taskId);
    expect(done.status).toBe("completed");
    expect(done.result.isError).toBeFalsy();
    expect(done.result.content[0].text).toContain("dropped-ok");
    // And the model, which never sees the status, reads it in the result's header.
    expect(done.result.content[0].text).toContain("a human was asked and answered after");
    expect(tables(db)).toBe("");
  });

  test("no (or a dismissed question) completes with BLOCKED_BY_GUARD and runs nothing", async () => {
    for (const answer of [{ action: "accept", content: { allow: false } }, { action: "decline" }]) {
      const db = database(`no-${answer.action}`);
      const { taskId } = await askedTask(db);
      await tasksClient.result("tasks/update", { taskId, inputResponses: { answer } });
      const done = await tasksClient.untilSettled(taskId);
      expect(done.status).toBe("completed");
      expect(done.result.isError).toBe(true);
      expect(done.result.content[0].text).toContain("BLOCKED_BY_GUARD");
      expect(done.result.content[0].text).not.toContain("Nobody was asked");
      expect(tables(db)).toBe("t");
    }
  });

  test("tasks/cancel while the guard asks: blocked, nothing ran, the session takes the next command", async () => {
    const db = database("cancel");
    const { taskId } = await askedTask(db);
    const cancelled = await tasksClient.result("tasks/cancel", { taskId });
    expect(cancelled.status).toBe("cancelled");
    const next = await tasksClient.result("tools/call", { name: "term_exec", arguments: { command: "echo next-ok" } });
    expect(next.resultType).toBe("complete");
    expect(next.structuredContent?.output ?? next.content[0].text).toContain("next-ok");
    expect(tables(db)).toBe("t");
  });
});

for (const persistent of [false, true]) {
  describe(`a password prompt in a task, URL-mode client, ${persistent ? "daemon" : "in-process"} session`, () => {
    const SECRET = `task-url-${crypto.randomUUID().slice(0, 8)}`;
    let urlClient: NewEraClient;
    beforeAll(() => {
      const env = { ...ENV, PTYHUB_PERSISTENT: persistent ? "1" : "0" };
      urlClient = new NewEraClient({ env, tasks: true, elicitation: { form: {}, url: {} } });
    });
    afterAll(async () => {
      await urlClient.close();
      if (persistent) await stopDaemon();
    });

    /** Starts a command that reads a password; returns its task id and the page it asks on. */
    async function passwordTask(): Promise<{ taskId: string; url: string; seen: unknown[] }> {
      const command = `read -s -p 'Password: ' pw; echo; echo "len=\${#pw}"`;
      const first = await urlClient.result("tools/call", { name: "term_exec", arguments: { command } });
      const asked = first.status === "input_required" ? first : await urlClient.untilSettled(first.taskId);
      expect(asked.status).toBe("input_required");
      const q = asked.inputRequests.answer;
      expect(q.params.mode).toBe("url");
      expect(q.params.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/);
      expect(q.params.message).toContain("Password:");
      return { taskId: first.taskId, url: q.params.url, seen: [first, asked] };
    }

    test("the human types it on ptyhub's page; the task completes; the client never carries it", async () => {
      const { taskId, url, seen } = await passwordTask();
      seen.push(await urlClient.result("tasks/update", { taskId, inputResponses: { answer: { action: "accept" } } }));
      const posted = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin },
        body: new URLSearchParams({ answer: SECRET }).toString(),
      });
      expect(posted.status).toBe(200);
      const done = await urlClient.untilSettled(taskId);
      seen.push(done);
      expect(done.status).toBe("completed");
      expect(done.result.content[0].text).toContain(`len=${SECRET.length}`);
      expect(JSON.stringify(seen)).not.toContain(SECRET);
      // Used once.
      const again = await fetch(url, { method: "POST", body: "answer=x" }).then(
        (r) => r.status,
        () => 0,
      );
      expect(again === 0 || again >= 400).toBe(true);
    });

    test("declined: the page closes and the command is interrupted", async () => {
      const { taskId, url } = await passwordTask();
      await urlClient.result("tasks/update", { taskId, inputResponses: { answer: { action: "decline" } } });
      const done = await urlClient.untilSettled(taskId);
      expect(done.status).toBe("completed");
      expect(done.result.content[0].text).not.toContain("len=");
      const status = await fetch(url).then(
        (r) => r.status,
        () => 0,
      );
      expect(status === 0 || status >= 400).toBe(true);
    });
  });
}
