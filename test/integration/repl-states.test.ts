/**
 * The state of REPLs and their pagers as the model reads it (issue 22 item 4): python's help()
 * in less is `pager`, however short the text; after `tab` or `ctrl+u` at a python, redis-cli or
 * psql prompt the state is `prompt`, not `running`; node's REPL (an event loop) with a word typed
 * is at its prompt too. The servers are real and started here, on
 * loopback, each with its own directory, and stopped at the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ctx, newHost, sendDefaults } from "../helpers/host.ts";
import { startPostgres } from "../helpers/postgres.ts";
import { startRedis } from "../helpers/redis.ts";

const host = newHost();
const servers: { stop(): Promise<void> }[] = [];

/** initdb and a first start on a loaded machine. */
const SERVER_START_MS = 60_000;

/** Debian's PostgreSQL server (package postgresql), which startPostgres runs. */
function havePostgres(): boolean {
  return existsSync("/usr/lib/postgresql");
}

afterAll(async () => {
  await host.shutdown();
  for (const server of servers) await server.stop();
});

/**
 * Types `partial` at the REPL's prompt, then `key`; returns the state after the key. `clear`
 * leaves a fresh prompt for the next case (ctrl+c would end redis-cli: it clears the line there).
 */
async function stateAfterKey(session: string, partial: string, key: string, clear = ["ctrl+c"]): Promise<string> {
  await host.send({ session, text: partial, enter: false, ...sendDefaults }, ctx);
  const r = await host.send({ session, keys: [key], ...sendDefaults }, ctx);
  await host.send({ session, keys: clear, ...sendDefaults }, ctx);
  return r.state;
}

describe.if(process.platform === "linux")("REPL states", () => {
  test("python help(len) in less is a pager, every time; q comes back to the prompt", async () => {
    await host.open({ name: "py", command: "python3" }, ctx);
    for (let i = 0; i < 6; i++) {
      const r = await host.send({ session: "py", text: "help(len)", ...sendDefaults }, ctx);
      expect(r.state).toBe("pager");
      expect(r.screen).toContain("(END)");
      const back = await host.send({ session: "py", text: "q", enter: false, ...sendDefaults }, ctx);
      expect(back.state).toBe("prompt");
    }
  }, 30_000);

  test("python: after tab and after ctrl+u the state is prompt", async () => {
    expect(await stateAfterKey("py", "pri", "tab")).toBe("prompt");
    expect(await stateAfterKey("py", "pri", "ctrl+u")).toBe("prompt");
    // On an empty line python's tab indents: ">>>" and four blanks before the cursor.
    const indent = await host.send({ session: "py", keys: ["tab"], ...sendDefaults }, ctx);
    expect(indent.state).toBe("prompt");
    await host.send({ session: "py", keys: ["ctrl+c"], ...sendDefaults }, ctx);
    await host.close({ session: "py" }, ctx);
  });

  test("node: a word typed at its prompt is prompt via tty, not running at the wait's bound", async () => {
    await host.open({ name: "node", command: "node" }, ctx);
    // Only the echo: the kernel's word ends the wait.
    const x = await host.send({ session: "node", text: "x", enter: false, ...sendDefaults }, ctx);
    expect(x).toMatchObject({ state: "prompt", via: "tty" });
    await host.send({ session: "node", keys: ["ctrl+u"], ...sendDefaults }, ctx);
    // With node's preview of the completion drawn below the line: the prompt, once it is quiet.
    const preview = await host.send({ session: "node", text: "Math.ma", enter: false, ...sendDefaults }, ctx);
    expect(preview).toMatchObject({ state: "prompt", via: "prompt", output: expect.stringContaining("Function: max") });
    await host.close({ session: "node" }, ctx);
  });

  test("node: `await` of a timer is answered with its value at the prompt, not `reading` before it", async () => {
    await host.open({ name: "node-await", command: "node" }, ctx);
    // While the promise is pending node's event loop waits over the tty with the timer's limit:
    // that was taken for a wait for keys after 200 ms (issue 36 item 3, the REPL oracle).
    const text = "await new Promise((r) => setTimeout(() => r('late'), 1000))";
    const r = await host.send({ session: "node-await", text, ...sendDefaults }, ctx);
    expect(r).toMatchObject({ state: "prompt", via: "prompt" });
    expect(r.output).toStartWith("'late'\n");
    const next = await host.send({ session: "node-await", text: "6*7", ...sendDefaults }, ctx);
    expect(next.output).toStartWith("42\n");
    await host.close({ session: "node-await" }, ctx);
  });

  test("irb: it asks the terminal where the cursor is, is answered, and reaches its prompt", async () => {
    // reline sends ESC [ 6 n at start and waits for the answer: unanswered, irb never drew a prompt
    // and every input went unanswered (issue 36 item 3, irb).
    const o = await host.open({ name: "irb", command: "irb" }, ctx);
    expect(o).toMatchObject({ state: "prompt", output: expect.stringMatching(/irb\(main\):001:0>$/) });
    const r = await host.send({ session: "irb", text: "6*7", ...sendDefaults }, ctx);
    expect(r).toMatchObject({ state: "prompt", via: "prompt" });
    expect(r.output).toStartWith("=> 42\n");
    await host.close({ session: "irb" }, ctx);
  });

  describe("redis-cli against a redis-server started here", () => {
    let port = 0;
    beforeAll(async () => {
      const redis = await startRedis();
      servers.push(redis);
      port = redis.port;
    }, SERVER_START_MS);

    test("at start and after a command the state is prompt", async () => {
      const o = await host.open({ name: "redis", command: "redis-cli", args: ["-p", String(port)] }, ctx);
      expect(o).toMatchObject({ state: "prompt" });
      const set = await host.send({ session: "redis", text: "SET greeting hello", ...sendDefaults }, ctx);
      expect(set).toMatchObject({ state: "prompt" });
      expect(set.output).toContain("OK");
    });

    // linenoise redraws its line after a bare CR: the line must stay on screen (issue 22 item 1).
    test("after tab and after ctrl+u the state is prompt", async () => {
      const clearLine = ["ctrl+e", "ctrl+u"];
      expect(await stateAfterKey("redis", "SE", "tab", clearLine)).toBe("prompt");
      expect(await stateAfterKey("redis", "GET some-key", "ctrl+u", clearLine)).toBe("prompt");
    });

    afterAll(() => host.close({ session: "redis" }, ctx));
  });

  describe.if(havePostgres())("psql against a PostgreSQL started here", () => {
    let port = 0;
    beforeAll(async () => {
      const pg = await startPostgres();
      servers.push(pg);
      port = pg.port;
    }, SERVER_START_MS);

    test("after tab and after ctrl+u the state is prompt", async () => {
      const args = ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres"];
      const o = await host.open({ name: "psql", command: "psql", args }, ctx);
      expect(o).toMatchObject({ state: "prompt" });
      expect(await stateAfterKey("psql", "SELE", "tab")).toBe("prompt");
      expect(await stateAfterKey("psql", "SELECT 1", "ctrl+u")).toBe("prompt");
      await host.close({ session: "psql" }, ctx);
    });
  });
});
