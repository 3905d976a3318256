/**
 * Issue 23 item 2: every way term_send can make a shell run a line is judged before anything is
 * written. A real bash (shell integration) and a nested busybox sh (no integration, prompt `% `)
 * in a git work tree with uncommitted work; the stopped line is `git reset --hard`, whose effect
 * (the work thrown away) is checked on disk after every case. The client has no elicitation, so
 * a stopped line is BLOCKED_BY_GUARD and nothing of the call is typed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { dirtyRepo, EDITED, ORIGINAL } from "./repo.ts";

let mcp: McpClient;
let dir: string;
const SESSION = "g-submit";

beforeAll(async () => {
  dir = dirtyRepo();
  mcp = await startMcp({ transport: "in-process" });
  const r = await mcp.call("term_open", { name: SESSION, cwd: dir, command: "bash" });
  expect(r.isError).toBe(false);
});
afterAll(async () => {
  await mcp.call("term_close", { session: SESSION }).catch(() => undefined);
  await mcp.close();
  await stopDaemon();
});

const send = (args: Record<string, unknown>) => mcp.call("term_send", { session: SESSION, wait_ms: 2000, ...args });

async function expectStopped(args: Record<string, unknown>): Promise<void> {
  const r = await send(args);
  expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
  expect(r.error!.message).toContain("git-discard-work");
  expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);
}

/** Empties the edit line (end, then kill to its start): no byte of it submits anything. */
async function clearLine(): Promise<void> {
  const r = await send({ keys: ["ctrl+e", "ctrl+u"], wait_ms: 300 });
  expect(r.isError).toBe(false);
}

describe("guard: lines term_send submits", () => {
  test("any key that submits: shift+enter, ctrl+enter, control+m, ctrl-j, ' enter', ctrl+o", async () => {
    for (const key of ["shift+enter", "ctrl+enter", "control+m", "ctrl-j", " enter", "ctrl+o", "^M"]) {
      await expectStopped({ text: "git reset --hard", enter: false, keys: [key] });
      await expectStopped({
        keys: ["g", "i", "t", "space", "r", "e", "s", "e", "t", "space", "-", "-", "h", "a", "r", "d", key],
      });
    }
  });

  test("a raw CR, LF or ^O inside the text", async () => {
    for (const end of ["\x0f", "\r", "\n"]) await expectStopped({ text: `git reset --hard${end}`, enter: false });
  });

  test("text typed earlier, the cursor moved to the start, then Enter: the whole line is judged", async () => {
    const typed = await send({ text: "git reset --hard", enter: false, wait_ms: 500 });
    expect(typed.isError).toBe(false);
    expect((await send({ keys: ["ctrl+a"], wait_ms: 300 })).isError).toBe(false);
    await expectStopped({ keys: ["enter"] });
    // Text inserted at the cursor in front of what is typed.
    await clearLine();
    expect((await send({ text: "--hard", enter: false, keys: ["home"], wait_ms: 500 })).isError).toBe(false);
    await expectStopped({ text: "git reset " });
    await clearLine();
  });

  test("continuation lines: a trailing backslash, and a here-document fed to bash", async () => {
    const first = await send({ text: "git reset \\", until: "> $" });
    expect(first.isError).toBe(false);
    await expectStopped({ text: "--hard" });
    await send({ keys: ["ctrl+c"], wait_ms: 1000 });
    const heredoc = await send({ text: "bash <<'EOF'", until: "> $" });
    expect(heredoc.isError).toBe(false);
    await expectStopped({ text: "git reset --hard" });
    await send({ keys: ["ctrl+c"], wait_ms: 1000 });
    // After the prompt returns, what was continued is forgotten: a harmless line runs.
    const ok = await mcp.call("term_exec", { session: SESSION, command: "echo still-here" });
    expect(ok.data.output).toBe("still-here");
  });

  test("a line recalled from history is judged as the screen shows it, never unseen", async () => {
    // A repository clean now: resetting it is harmless, so the line runs and enters history.
    const other = dirtyRepo();
    writeFileSync(join(other, "file.txt"), ORIGINAL);
    const clean = await mcp.call("term_exec", { session: SESSION, command: `git -C ${other} reset --hard` });
    expect(clean.data.exit_code).toBe(0);
    writeFileSync(join(other, "file.txt"), EDITED);
    // `up` and Enter in one call: what `up` puts on the line cannot be known before it is sent.
    const together = await send({ keys: ["up", "enter"] });
    expect(together.error?.code).toBe("INVALID_ARGUMENT");
    expect(together.error!.hint).toContain("then Enter in its own call");
    // Recalled first, Enter alone: the screen shows the line, and it is judged.
    expect((await send({ keys: ["up"], wait_ms: 500 })).isError).toBe(false);
    const enter = await send({ keys: ["enter"] });
    expect(enter.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(enter.error!.message).toContain(`uncommitted work: 1 changed or untracked path in ${other}`);
    expect(readFileSync(join(other, "file.txt"), "utf8")).toBe(EDITED);
    await clearLine();
  });

  test.if(Bun.which("sqlite3") !== null)("SQL continued over lines at a database client is judged whole", async () => {
    const db = join(dir, "app.db");
    expect(Bun.spawnSync(["sqlite3", db, "CREATE TABLE users (id int); INSERT INTO users VALUES (7);"]).exitCode).toBe(
      0,
    );
    const opened = await mcp.call("term_open", { name: "g-sql-lines", command: "sqlite3", args: [db] });
    expect(opened.isError).toBe(false);
    try {
      const sql = (args: Record<string, unknown>) => mcp.call("term_send", { session: "g-sql-lines", ...args });
      expect((await sql({ text: "DROP", until: "\\.\\.\\.> $" })).isError).toBe(false);
      const rest = await sql({ text: "TABLE users;", enter: false, keys: ["ctrl+j"] });
      expect(rest.error?.code).toBe("BLOCKED_BY_GUARD");
      expect(rest.error!.message).toContain("sql-destroy");
      const count = Bun.spawnSync(["sqlite3", db, "SELECT count(*) FROM users;"]).stdout.toString().trim();
      expect(count).toBe("1");
    } finally {
      await mcp.call("term_close", { session: "g-sql-lines" });
    }
  });

  test.if(Bun.which("fish") !== null)(
    "a suggestion drawn after the cursor (fish) does not hide the typed line",
    async () => {
      const fish = "g-fish";
      expect((await mcp.call("term_open", { name: fish, cwd: dir, command: "fish" })).isError).toBe(false);
      try {
        // In history now: fish will suggest its tail once `git reset --hard` is typed.
        const seeded = await mcp.call("term_exec", {
          session: fish,
          command: "git reset --hard-not-an-option 2>/dev/null",
        });
        expect(seeded.isError).toBe(false);
        const typed = await mcp.call("term_send", {
          session: fish,
          text: "git reset --hard",
          enter: false,
          until: "not-an-option",
        });
        expect(typed.isError).toBe(false);
        const enter = await mcp.call("term_send", { session: fish, keys: ["enter"] });
        expect(enter.error?.code).toBe("BLOCKED_BY_GUARD");
        expect(readFileSync(join(dir, "file.txt"), "utf8")).toBe(EDITED);
      } finally {
        await mcp.call("term_close", { session: fish });
      }
    },
  );

  test.if(Bun.which("busybox") !== null)("a nested shell with its own prompt ('% ', no integration)", async () => {
    const nested = await send({ text: "PS1='% ' busybox sh", until: "% $" });
    expect(nested.isError).toBe(false);
    await expectStopped({ text: "git reset --hard" });
    // `git reset \` alone is harmless and is typed; the line it continues into is stopped.
    const first = await send({ text: "git reset \\", until: "> $" });
    expect(first.isError).toBe(false);
    await expectStopped({ text: "--hard" });
    await send({ keys: ["ctrl+c"], wait_ms: 500 });
    const harmless = await send({ text: "echo nested-ok", until: "nested-ok" });
    expect(harmless.data.matched).toBe("nested-ok");
    await send({ text: "exit", until: "\\$ $" });
  });

  test("issue 35 item 4: a shell started under another name (a symlink called cat) is judged as a shell", async () => {
    const bin = mkdtempSync(join(tmpdir(), "guard-renamed-"));
    symlinkSync(Bun.which("bash")!, join(bin, "cat"));
    // No rc file, so no shell integration: the guard sees only a foreground program called `cat`.
    const nested = await send({ text: `PS1='% ' ${join(bin, "cat")} --norc -i`, until: "% $" });
    expect(nested.isError).toBe(false);
    await expectStopped({ text: "git reset --hard" });
    await send({ keys: ["ctrl+u"], wait_ms: 200 });
    await send({ text: "exit", until: "\\$ $" });
  });
});
