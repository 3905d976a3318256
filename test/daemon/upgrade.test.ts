/**
 * Upgrades: a server meeting a daemon older than itself (a real daemon run from a copy of this
 * tree that calls itself 0.0.1) replaces it when it hosts no session, and otherwise leaves it
 * serving its sessions and says how to replace it: once on stderr, and at the head of every term_list
 * and `ptyhub ls` while it serves.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reachDaemon } from "../../src/daemon-client/start.ts";
import { VERSION } from "../../src/version.ts";
import { daemonStatus } from "../helpers/daemon.ts";
import { REPO, type Env } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { fixture, runCli } from "./helpers.ts";

const OLD_VERSION = "0.0.1";
const START_WAIT_MS = 20_000;

/** This tree as an older release: the same code, calling itself OLD_VERSION. */
const oldTree = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "old-ptyhub-"));
cpSync(join(REPO, "src"), join(oldTree, "src"), { recursive: true });
writeFileSync(join(oldTree, "src", "version.ts"), `export const VERSION: string = "${OLD_VERSION}";\n`);
symlinkSync(join(REPO, "node_modules"), join(oldTree, "node_modules"));
afterAll(() => rmSync(oldTree, { recursive: true, force: true }));

const f = fixture();
afterEach(() => f.cleanup());

/** Starts the old version's daemon (it detaches from nothing: ended by the fixture's daemon stop). */
async function startOldDaemon(env: Env): Promise<number> {
  const proc = Bun.spawn([process.execPath, join(oldTree, "src", "cli.ts"), "daemon"], {
    env,
    stdio: ["ignore", "ignore", "ignore"],
  });
  await waitFor(async () => (await daemonStatus(env))?.version === OLD_VERSION, START_WAIT_MS, "the old daemon");
  return proc.pid;
}

describe("a newer server meeting an older daemon", () => {
  test("with no session, it replaces the daemon by one of its own version", async () => {
    const env = f.env();
    const oldPid = await startOldDaemon(env);
    const server = await f.server(env);
    const stderr = server.stderr;
    await server.ok("term_open", { name: "fresh" });
    await waitFor(() => !alive(oldPid), START_WAIT_MS, "the old daemon to exit");
    const st = await daemonStatus(env);
    expect(st).toMatchObject({ version: VERSION, sessions: 1 });
    expect(st!.pid).not.toBe(oldPid);
    await waitFor(() => stderr().includes(`replacing the idle ptyhub daemon ${OLD_VERSION}`), 5000, "the notice");
  });

  test("with sessions, the old daemon keeps them, and the server says how to upgrade it", async () => {
    const env = f.env();
    const oldPid = await startOldDaemon(env);
    const c = await reachDaemon({ role: "test", env, start: false });
    try {
      await c.invoke("open", { name: "keep" }, { clientId: "test" });
    } finally {
      c.close();
    }
    const server = await f.server(env);
    const stderr = server.stderr;
    await server.ok("term_open", { name: "second" });
    expect(alive(oldPid)).toBe(true);
    expect(await daemonStatus(env)).toMatchObject({ version: OLD_VERSION, sessions: 2 });
    await waitFor(() => stderr().includes("ptyhub daemon --stop"), 5000, "the upgrade hint");
    expect(stderr()).toContain(`version ${OLD_VERSION}, older than this ptyhub (${VERSION})`);
    // Where the model reads it, too: at the head of term_list, and in its notices.
    const list = await server.call("term_list", {});
    const notice =
      `the ptyhub daemon hosting the persistent sessions is version ${OLD_VERSION}, this ptyhub ${VERSION}: ` +
      `\`ptyhub daemon --stop\` (ending its 2 sessions) lets the next term_open start one of ${VERSION}`;
    expect(list.text.split("\n")[0]).toBe(`[${notice}]`);
    expect(list.data.notices).toEqual([notice]);
    // And to a human at `ptyhub ls`.
    const ls = await runCli(env, ["ls"]);
    expect(ls.stderr).toContain(notice);
  });

  test("a daemon of this version adds no notice to term_list", async () => {
    const env = f.env();
    const server = await f.server(env);
    await server.ok("term_open", { name: "same" });
    const list = await server.call("term_list", {});
    expect(list.data.notices).toBeUndefined();
    expect(list.text.startsWith("same · local")).toBe(true);
  });
});
