/**
 * Persistent sessions seen from MCP clients: they survive the MCP server's death, several servers
 * share them with their own read cursors and serialized input, and a dead daemon is reported as
 * such (DAEMON_UNAVAILABLE) and replaced on the next term_open. Real MCP servers (`ptyhub` over
 * stdio, driven by the SDK client), real daemons, real shells.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { daemonStatus } from "../helpers/daemon.ts";
import type { StdioMcp } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { errorCode, runCli, settleLeftovers, fixture } from "./helpers.ts";

const fx = fixture();
const env = fx.env;
const server = fx.server;

afterEach(fx.cleanup);

describe("persistent sessions", () => {
  test("restart survival: output produced while no server was connected is read exactly once", async () => {
    const e = env();
    const a = await server(e);
    const opened = await a.ok("term_open", { name: "job" });
    expect(opened.persistent).toBe(true);
    expect(opened.attach).toBe("ptyhub attach job");
    const started = await a.ok("term_send", {
      session: "job",
      text: "for i in $(seq 1 6); do echo tick-$i; sleep 0.15; done; echo JOB-DONE",
      until: "tick-1",
      wait_ms: 5000,
    });
    expect(started.output).toContain("tick-1");
    // Reading is at-least-once: a result the server has not yet acknowledged to the daemon (it does
    // once the result is written out) may come again, labelled (test/chaos/read-kill.test.ts). Here
    // the server answers one more call first, so the send's result is acknowledged: exactly once.
    await a.ok("term_list");
    await a.kill(); // kill -9 while the command runs

    const st = await daemonStatus(e);
    expect(st?.sessions).toBe(1);

    const b = await server(e);
    const list = (await b.ok("term_list")).sessions as Array<{ session: string; alive: boolean; persistent: boolean }>;
    expect(list.map((s) => s.session)).toEqual(["job"]);
    expect(list[0]).toMatchObject({ alive: true, persistent: true });
    // The command finishes before anyone reads (term_list moves no read cursor).
    await waitFor(
      async () => ((await b.ok("term_list")).sessions as Array<{ state: string }>)[0]!.state === "prompt",
      10_000,
      "the command to finish",
    );
    const r = await b.ok("term_read", { session: "job", wait_ms: 0 });
    const lines = String(r.output).split("\n");
    // Everything after tick-1 exactly once: no gap, no duplicate.
    expect(lines.filter((l) => l.startsWith("tick-"))).toEqual(["tick-2", "tick-3", "tick-4", "tick-5", "tick-6"]);
    expect(lines.filter((l) => l === "JOB-DONE")).toHaveLength(1);
    expect(r.dropped).toBe(0);
    const again = await b.ok("term_read", { session: "job", wait_ms: 0 });
    expect(again.output).toBe("");
  }, 30_000);

  test("more output while detached than the history keeps: dropped counts the loss, the head and tail are read once", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { name: "flood" });
    await a.ok("term_send", {
      session: "flood",
      text: "echo FLOOD-START; sleep 0.3; seq 1 200000; echo FLOOD-DONE",
      until: "FLOOD-START",
      wait_ms: 5000,
    });
    await a.ok("term_list"); // the send's result is acknowledged first (see the test above)
    await a.kill();
    const b = await server(e);
    await waitFor(
      async () => ((await b.ok("term_list")).sessions as Array<{ state: string }>)[0]!.state === "prompt",
      20_000,
      "the flood to end",
    );
    const r = await b.ok("term_read", { session: "flood", wait_ms: 0, max_tokens: 2000 });
    expect(r.dropped as number).toBeGreaterThan(100_000);
    const out = String(r.output);
    expect(out.startsWith("1\n2\n3\n")).toBe(true); // the head, kept for the reader
    // The tail, up to the command's end: the prompt after it is not output (issue 36 item 2).
    expect(out.endsWith("200000\nFLOOD-DONE")).toBe(true);
    expect((await b.ok("term_read", { session: "flood", wait_ms: 0 })).output).toBe("");
  }, 40_000);

  test("the exit code of a command that finished while detached is reported, and an exited program keeps its code", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { name: "sh1" });
    const r1 = await a.ok("term_exec", {
      session: "sh1",
      command: "sleep 0.6; echo finished-late; (exit 3)",
      timeout_ms: 100,
    });
    expect(r1.status).toBe("running");
    await a.ok("term_open", { name: "prog", command: "sleep 0.5; echo bye; exit 7" });
    await a.kill();

    const b = await server(e);
    // Both finish while no read happens (term_list moves no read cursor).
    await waitFor(
      async () => {
        const sessions = (await b.ok("term_list")).sessions as Array<{
          session: string;
          state: string;
          alive: boolean;
        }>;
        return (
          sessions.some((s) => s.session === "sh1" && s.state === "prompt") &&
          sessions.some((s) => s.session === "prog" && !s.alive)
        );
      },
      10_000,
      "the command and the program to finish",
    );
    const r2 = await b.ok("term_read", { session: "sh1", wait_ms: 0 });
    expect(r2.output).toContain("finished-late");
    expect(r2.exit_code).toBe(3);
    const list = (await b.ok("term_list")).sessions as Array<{
      session: string;
      alive: boolean;
      exit_code: number | null;
    }>;
    expect(list.find((s) => s.session === "prog")).toMatchObject({ alive: false, exit_code: 7 });
    // The exited session keeps its final screen until it is closed.
    const screen = await b.ok("term_read", { session: "prog", mode: "screen" });
    expect(screen.output).toContain("bye");
    const closed = await b.ok("term_close", { session: "prog" });
    expect(closed.exit_code).toBe(7);
  }, 30_000);

  test("term_exec's default session lives in the daemon: cd survives a restart", async () => {
    const e = env();
    const a = await server(e);
    const r = await a.ok("term_exec", { command: "cd /usr/share && export KEEP=kept" });
    expect(r.session).toBe("main");
    await a.close();
    const b = await server(e);
    const r2 = await b.ok("term_exec", { command: "pwd; echo $KEEP" });
    expect(r2.output).toBe("/usr/share\nkept");
  }, 30_000);

  test("two clients on one session: concurrent typing never interleaves mid-line; each has its own read cursor", async () => {
    const e = env();
    const a = await server(e, "a");
    const b = await server(e, "b");
    await a.ok("term_open", { name: "shared", cwd: e.XDG_RUNTIME_DIR });
    const out = join(e.XDG_RUNTIME_DIR!, "typed.txt");
    await a.ok("term_send", {
      session: "shared",
      text: `stty -echo; echo CAT-READY; cat > ${out}`,
      until: "CAT-READY",
      wait_ms: 5000,
    });
    const N = 12;
    const LEN = 900;
    const typing = (s: StdioMcp, ch: string) =>
      (async () => {
        for (let i = 0; i < N; i++)
          await s.ok("term_send", {
            session: "shared",
            text: `${ch}${String(i).padStart(2, "0")}`.padEnd(LEN, ch),
            wait_ms: 0,
          });
      })();
    await Promise.all([typing(a, "a"), typing(b, "b")]);
    await a.ok("term_send", { session: "shared", keys: ["ctrl+d"], wait_ms: 300 });
    await waitFor(
      () => {
        try {
          return readFileSync(out, "utf8").split("\n").filter(Boolean).length === 2 * N;
        } catch {
          return false;
        }
      },
      5000,
      "all lines in the file",
    );
    const lines = readFileSync(out, "utf8").split("\n").filter(Boolean);
    for (const line of lines) {
      expect(line.length).toBe(LEN);
      expect(/^a\d\da+$|^b\d\db+$/.test(line)).toBe(true);
    }
    expect(lines.filter((l) => l.startsWith("a")).map((l) => l.slice(0, 3))).toEqual(
      Array.from({ length: N }, (_, i) => `a${String(i).padStart(2, "0")}`),
    );

    // Own cursors: both have read up to now; new output is then new for each of them.
    await a.ok("term_send", { session: "shared", text: "stty echo", wait_ms: 300 });
    await a.ok("term_read", { session: "shared", wait_ms: 0 });
    await b.ok("term_read", { session: "shared", wait_ms: 0 });
    await a.ok("term_exec", { session: "shared", command: "echo shared-$((40+2))" });
    const rb = await b.ok("term_read", { session: "shared", wait_ms: 0 });
    expect(rb.output).toContain("shared-42");
    const ra = await a.ok("term_read", { session: "shared", wait_ms: 0 });
    expect(ra.output).not.toContain("shared-42");
  }, 60_000);

  test("resource subscribers hear when a daemon session's command finishes or it exits", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { name: "watched" });
    const updated: string[] = [];
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
      updated.push(n.params.uri);
    });
    await a.client.subscribeResource({ uri: "ptyhub://sessions/watched/screen" });
    await a.ok("term_exec", { session: "watched", command: "echo notify-me" });
    await waitFor(() => updated.includes("ptyhub://sessions/watched/screen"), 5000, "a resource update");
    const screen = await a.client.readResource({ uri: "ptyhub://sessions/watched/screen" });
    expect(JSON.stringify(screen.contents)).toContain("notify-me");
  }, 30_000);

  test("persistent:false keeps the session in the MCP server's process, and it ends with it", async () => {
    const e = env();
    const a = await server(e);
    const r = await a.ok("term_open", { name: "inproc", persistent: false });
    expect(r.persistent).toBe(false);
    expect(r.attach).toBe(null);
    const ppid = Number(readFileSync(`/proc/${r.pid}/stat`, "latin1").split(") ")[1]!.split(" ")[1]);
    expect(ppid).toBe(a.pid);
    // No daemon was needed for it.
    expect(await daemonStatus(e)).toBe(null);
    // A persistent session may not take a name an in-process one has.
    const clash = await a.call("term_open", { name: "inproc" });
    expect(errorCode(clash)).toBe("SESSION_EXISTS");
    await a.close();
    await waitFor(() => !alive(Number(r.pid)), 5000, "the in-process shell to end");
  }, 30_000);

  test("ptyhub ls and ptyhub kill work from any shell", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { name: "listed", command: "sleep 300" });
    const ls = await runCli(e, ["ls"]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^SESSION/);
    expect(ls.stdout).toMatch(/\blisted\b.*sleep 300/);
    const json = JSON.parse((await runCli(e, ["ls", "--json"])).stdout);
    expect(json[0]).toMatchObject({ session: "listed", alive: true });
    const kill = await runCli(e, ["kill", "listed"]);
    expect(kill.code).toBe(0);
    expect(kill.stdout).toContain("closed listed");
    expect((await a.ok("term_list")).sessions).toEqual([]);
    const missing = await runCli(e, ["kill", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("SESSION_NOT_FOUND");
  }, 30_000);

  test("daemon killed: calls on its sessions fail with DAEMON_UNAVAILABLE, and the next term_open starts a fresh daemon", async () => {
    const e = env();
    const a = await server(e);
    const opened = await a.ok("term_open", { name: "doomed" });
    const st = await daemonStatus(e);
    process.kill(st!.pid, "SIGKILL");
    await waitFor(() => !alive(st!.pid), 5000, "the daemon to die");
    // Its shell goes with it (its terminal is gone).
    await waitFor(() => !alive(Number(opened.pid)), 5000, "the session's shell to end");

    const r = await a.call("term_read", { session: "doomed" });
    expect(errorCode(r)).toBe("DAEMON_UNAVAILABLE");
    expect(r.text).toContain("daemon is gone");
    expect(r.text).toContain("term_open");
    // A fresh MCP server, which never saw the session, is told the same (the socket was left).
    const b = await server(e);
    expect(errorCode(await b.call("term_send", { session: "doomed", text: "x" }))).toBe("DAEMON_UNAVAILABLE");

    const fresh = await a.ok("term_open", { name: "fresh" });
    const st2 = await daemonStatus(e);
    expect(st2!.pid).not.toBe(st!.pid);
    expect((await a.ok("term_exec", { session: "fresh", command: "echo back" })).output).toBe("back");
    expect(errorCode(await a.call("term_read", { session: "doomed" }))).toBe("DAEMON_UNAVAILABLE");
    expect(fresh.session).toBe("fresh");
  }, 30_000);
});

afterAll(fx.cleanup);

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  await fx.cleanup();
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
