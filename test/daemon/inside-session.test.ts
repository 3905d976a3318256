/**
 * The daemon refuses programs that run inside its own sessions (issue 23, item 4): a model that
 * types `ptyhub attach target` or `ptyhub ls` into a session must not reach the daemon, from a
 * plain session, with a scrubbed environment in a new session id, or from a sandboxed session.
 * Real parts: the MCP SDK client drives `bun src/cli.ts`, the sessions live in the real daemon,
 * and the refused programs are the real CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";

const REFUSED = "refuses connections from programs running inside its own sessions";
const ptyhub = `${process.execPath} ${CLI}`;
let mcp: StdioMcp;
let work: string;
const sessions: string[] = [];

beforeAll(async () => {
  mcp = await startMcp({ env: { PTYHUB_SHELL: "/bin/bash" } });
  work = realpathSync(mkdtempSync(join(tmpdir(), "inside-session-")));
});
afterAll(async () => {
  for (const s of sessions) await mcp.call("term_close", { session: s }).catch(() => undefined);
  await mcp.close();
  await stopDaemon();
});

async function open(name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await mcp.call("term_open", { name, cwd: work, command: "bash", ...extra });
  expect(r.error).toBeNull();
  sessions.push(name);
}

async function exec(session: string, command: string): Promise<Record<string, any>> {
  const r = await mcp.call("term_exec", { session, command, timeout_ms: 60_000 });
  expect(r.error).toBeNull();
  return r.data;
}

describe("a program inside a session cannot use the daemon", () => {
  test("ptyhub ls and ptyhub attach from a session are refused, and say why", async () => {
    await open("target");
    await open("jump");
    const ls = await exec("jump", `${ptyhub} ls`);
    expect(ls.exit_code).not.toBe(0);
    expect(ls.output).toContain(REFUSED);
    expect(ls.output).toContain("session jump");
    // Before the fix this attached (and the call waited on it): `timeout` bounds that case.
    const attach = await exec("jump", `timeout 20 ${ptyhub} attach target`);
    expect(attach.exit_code).not.toBe(0);
    expect(attach.exit_code).not.toBe(124);
    expect(attach.output).toContain(REFUSED);
  }, 90_000);

  test("a scrubbed environment in a new session id is still inside", async () => {
    // No PTYHUB_SESSION, no controlling terminal, another session id: its ancestry tells.
    const socket = process.env.PTYHUB_SOCKET ? `PTYHUB_SOCKET=${process.env.PTYHUB_SOCKET}` : "";
    const r = await exec(
      "jump",
      `env -i PATH="$PATH" HOME="$HOME" ${socket} setsid -w ${ptyhub} ls </dev/null 2>&1 | cat`,
    );
    expect(r.output).toContain(REFUSED);
  }, 60_000);

  test.if(landlockAbi() >= 1)(
    "a sandboxed session is refused too",
    async () => {
      await open("boxed", { sandbox: "workspace" });
      const r = await exec("boxed", `${ptyhub} ls`);
      // The sandbox hides the daemon's socket (src/backend/local/sandbox/hidden-paths.ts): the
      // program finds no daemon at all, or, where it could still reach one, is refused by it.
      const hidden = r.output.includes("no daemon is running");
      expect(hidden || r.output.includes(REFUSED)).toBe(true);
      expect(r.output).not.toContain("target");
      if (!hidden) expect(r.exit_code).not.toBe(0);
    },
    60_000,
  );

  test("the human's own terminal, outside the sessions, still lists them", async () => {
    const proc = Bun.spawn([process.execPath, CLI, "ls"], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(out).toContain("jump");
  });
});
