/**
 * The guard on the real path: the MCP SDK client drives `bun src/cli.ts`, sessions live in the
 * daemon (so the question to the human travels daemon → server → client), and the client's
 * elicitation handler plays the human. What a blocked line would have done (throw away a work
 * tree's changes) is checked on disk: blocked means nothing was typed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { dirtyRepo, EDITED, ORIGINAL } from "./repo.ts";

let answer: "yes" | "no" = "no";
let human: McpClient;
let noElicitation: McpClient;
const opened: { mcp: () => McpClient; session: string }[] = [];

beforeAll(async () => {
  human = await startMcp({
    transport: "in-process",
    elicit: () => ({ action: "accept", content: { allow: answer === "yes" } }),
  });
  noElicitation = await startMcp({ transport: "in-process" });
});
afterAll(async () => {
  for (const o of opened)
    await o
      .mcp()
      .call("term_close", { session: o.session })
      .catch(() => undefined);
  await human.close();
  await noElicitation.close();
  await stopDaemon();
});

async function openIn(mcp: () => McpClient, dir: string, session: string): Promise<void> {
  const r = await mcp().call("term_open", { name: session, cwd: dir, command: "bash" });
  expect(r.isError).toBe(false);
  opened.push({ mcp, session });
}

describe("guard", () => {
  test("a client without elicitation gets BLOCKED_BY_GUARD with how a human allows it, and nothing is typed", async () => {
    const dir = dirtyRepo();
    await openIn(() => noElicitation, dir, "g-noelicit");
    const r = await noElicitation.call("term_exec", { session: "g-noelicit", command: "git reset --hard" });
    expect(r.isError).toBe(true);
    expect(r.error!.code).toBe("BLOCKED_BY_GUARD");
    expect(r.error!.message).toContain("git-discard-work");
    expect(r.error!.message).toContain("Nobody was asked");
    expect(r.error!.hint).toContain("ptyhub attach g-noelicit");
    expect(r.error!.hint).toContain('"guard": {"disable": ["git-discard-work"]}');
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);
    // The session is untouched and still usable: a harmless command runs without any question.
    const ok = await noElicitation.call("term_exec", { session: "g-noelicit", command: "git status --short" });
    expect(ok.data.exit_code).toBe(0);
    expect(ok.data.output).toContain("file.txt");
  });

  test("the human is asked, sees the command and why; no → BLOCKED_BY_GUARD, yes → typed", async () => {
    const dir = dirtyRepo();
    await openIn(() => human, dir, "g-human");
    const before = human.elicitations.length;
    answer = "no";
    const declined = await human.call("term_exec", { session: "g-human", command: "git reset --hard" });
    expect(declined.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(declined.error!.message).toContain("did not confirm");
    expect(human.elicitations.length).toBe(before + 1);
    const asked = human.elicitations[before]!;
    expect(asked.message).toContain("git reset --hard");
    expect(asked.message).toContain("uncommitted work");
    expect(asked.message).toContain("g-human");
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);

    answer = "yes";
    const done = await human.call("term_exec", { session: "g-human", command: "git reset --hard" });
    expect(done.isError).toBe(false);
    expect(done.data.exit_code).toBe(0);
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(ORIGINAL);
    // Now the tree is clean: the same command needs no confirmation.
    const again = human.elicitations.length;
    expect((await human.call("term_exec", { session: "g-human", command: "git reset --hard" })).data.exit_code).toBe(0);
    expect(human.elicitations.length).toBe(again);
  });

  test("term_send: a line typed in pieces is judged whole at Enter", async () => {
    const dir = dirtyRepo();
    await openIn(() => noElicitation, dir, "g-send");
    const whole = await noElicitation.call("term_send", { session: "g-send", text: "git checkout -- ." });
    expect(whole.error?.code).toBe("BLOCKED_BY_GUARD");
    const part = await noElicitation.call("term_send", {
      session: "g-send",
      text: "git reset ",
      enter: false,
      wait_ms: 300,
    });
    expect(part.isError).toBe(false);
    const rest = await noElicitation.call("term_send", { session: "g-send", text: "--hard" });
    expect(rest.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(rest.error!.message).toContain("git reset --hard");
    await noElicitation.call("term_send", { session: "g-send", keys: ["ctrl+u"], wait_ms: 200 });
    // Typed without Enter, then Enter as a key: judged at the key.
    await noElicitation.call("term_send", { session: "g-send", text: "git clean -fd", enter: false, wait_ms: 300 });
    const key = await noElicitation.call("term_send", { session: "g-send", keys: ["enter"] });
    expect(key.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(key.error!.message).toContain("git clean -f");
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);
    // Text for a program that is not a shell prompt (here: `cat` reading) is the program's business.
    await noElicitation.call("term_send", { session: "g-send", keys: ["ctrl+u"], wait_ms: 200 });
    const cat = await noElicitation.call("term_send", { session: "g-send", text: "cat", wait_ms: 1000 });
    expect(cat.data.state).toBe("reading");
    const typed = await noElicitation.call("term_send", {
      session: "g-send",
      text: "git reset --hard",
      until: "git reset --hard",
      wait_ms: 3000,
    });
    expect(typed.isError).toBe(false);
    expect(typed.data.matched).toBe("git reset --hard");
    const back = await noElicitation.call("term_send", { session: "g-send", keys: ["ctrl+d"], wait_ms: 2000 });
    expect(back.data.state).toBe("prompt");
    expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);
  });

  test.if(Bun.which("sqlite3") !== null)(
    "SQL typed at a database client's prompt: DROP TABLE is stopped, SELECT is not",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "guard-sql-"));
      const db = join(dir, "app.db");
      expect(
        Bun.spawnSync(["sqlite3", db, "CREATE TABLE users (id int); INSERT INTO users VALUES (7);"]).exitCode,
      ).toBe(0);
      const r = await noElicitation.call("term_open", { name: "g-sql", command: "sqlite3", args: [db] });
      expect(r.isError).toBe(false);
      opened.push({ mcp: () => noElicitation, session: "g-sql" });
      const drop = await noElicitation.call("term_send", { session: "g-sql", text: "DROP TABLE users;" });
      expect(drop.error?.code).toBe("BLOCKED_BY_GUARD");
      expect(drop.error!.message).toContain("sql-destroy");
      const select = await noElicitation.call("term_send", {
        session: "g-sql",
        text: "SELECT id FROM users;",
        until: "^7$",
      });
      expect(select.data.matched).toBe("7");
      expect(Bun.spawnSync(["sqlite3", db, "SELECT count(*) FROM users;"]).stdout.toString().trim()).toBe("1");
    },
  );
});
