/**
 * Faults around the daemon: the MCP server's stdin closing while a call waits on a persistent
 * session, a daemon killed with SIGKILL leaving `nohup` / `trap '' HUP` jobs behind, which
 * the next daemon must end, and a daemon beside it (another socket, same directory) whose
 * sessions must be left alone. Real MCP servers, real daemons, real shells.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { daemonStatus } from "../helpers/daemon.ts";
import { CLI, REPO, type Env } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { errorCode, fixture, runCli, settleLeftovers } from "./helpers.ts";
import { readJsonLines } from "../helpers/json-lines.ts";

const fx = fixture();
afterEach(fx.cleanup);

/** Speaks raw JSON-RPC lines to a `ptyhub` process, so its stdin can be closed mid-call. */
function rawServer(env: Env) {
  const proc = Bun.spawn([process.execPath, CLI], { env, cwd: REPO, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const replies = new Map<number, Record<string, any>>();
  const pump = readJsonLines(proc.stdout, (msg) => {
    if (typeof msg.id === "number") replies.set(msg.id, msg);
  });
  const send = (msg: Record<string, unknown>) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);
    proc.stdin.flush();
  };
  const reply = async (id: number) => {
    await waitFor(() => replies.has(id), 30_000, `reply ${id}`);
    return replies.get(id)!;
  };
  return { proc, send, reply, pump };
}

/** Ends processes a failed test would otherwise leave behind. */
function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone: what the test wanted.
    }
  }
}

describe("daemon faults", () => {
  test("stdin closed while term_exec waits on a daemon session: 'shutting down', the session lives on", async () => {
    const e = fx.env();
    const raw = rawServer(e);
    // The command waits for this file, so it is surely still running when stdin closes.
    const gate = join(e.XDG_RUNTIME_DIR!, "go");
    try {
      raw.send({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      });
      await raw.reply(1);
      raw.send({ method: "notifications/initialized" });
      raw.send({ id: 2, method: "tools/call", params: { name: "term_open", arguments: { name: "keep" } } });
      expect((await raw.reply(2)).result.isError).toBeUndefined();
      const command = `until [ -e ${gate} ]; do sleep 0.05; done; echo finished-$((6*7))`;
      raw.send({ id: 3, method: "tools/call", params: { name: "term_exec", arguments: { session: "keep", command } } });
      // Barrier: the command is running in the daemon's session before the client hangs up.
      const probe = await fx.server(e, "probe");
      const running = async () =>
        ((await probe.ok("term_list")).sessions as Array<{ state: string }>).some((s) => s.state === "running");
      await waitFor(running, 30_000, "the command to run");
      raw.proc.stdin.end();
      const answer = await raw.reply(3);
      const text: string = answer.result.content[0].text;
      expect(text).toContain("shutting down");
      expect(text).toContain("lives on");
      expect(text).not.toContain("gone");
      expect(await raw.proc.exited).toBe(0);

      writeFileSync(gate, "");
      const finished = async () =>
        String((await probe.ok("term_read", { session: "keep", mode: "history" })).output).includes("finished-42");
      await waitFor(finished, 30_000, "the command to finish in the session that lived on");
    } finally {
      raw.proc.kill("SIGKILL");
      await raw.proc.exited;
    }
  }, 60_000);

  test("after kill -9 of the daemon, the next one reaps nohup and trap '' HUP jobs, and logs it", async () => {
    const e = fx.env();
    const a = await fx.server(e);
    await a.ok("term_open", { name: "bg" });
    const nohup = await a.ok("term_exec", { session: "bg", command: "nohup sleep 1000 >/dev/null 2>&1 & echo $!" });
    const trapped = await a.ok("term_exec", {
      session: "bg",
      command: "bash -c \"trap '' HUP; exec sleep 1001\" >/dev/null 2>&1 & echo $!",
    });
    const lastLine = (r: Record<string, any>) => Number(String(r.output).trim().split("\n").pop());
    const orphans = [lastLine(nohup), lastLine(trapped)];
    expect(orphans.every((pid) => pid > 1 && alive(pid))).toBe(true);

    const st = await daemonStatus(e);
    process.kill(st!.pid, "SIGKILL");
    await waitFor(() => !alive(st!.pid), 5000, "the daemon to die");
    // What the issue saw: the shell dies with its terminal, these jobs do not.
    expect(orphans.every((pid) => alive(pid))).toBe(true);

    try {
      // The next term_open starts a new daemon, which reaps them before serving. The first call may
      // still meet the dead daemon's connection and say so (DAEMON_UNAVAILABLE); the next one starts it.
      const first = await a.call("term_open", { name: "fresh" });
      if (first.isError) {
        expect(errorCode(first)).toBe("DAEMON_UNAVAILABLE");
        await a.ok("term_open", { name: "fresh" });
      }
      expect((await a.ok("term_exec", { session: "fresh", command: "echo ok" })).output).toBe("ok");
      await waitFor(() => orphans.every((pid) => !alive(pid)), 10_000, "the orphans to be reaped");
      const log = readFileSync(daemonPaths(e).log, "utf8");
      expect(log).toContain(`session 'bg' left by dead daemon pid ${st!.pid}`);
    } finally {
      killAll(orphans);
    }
  }, 60_000);

  test("with no daemon to start, `ptyhub daemon --stop` reaps what a killed daemon left", async () => {
    const e = fx.env();
    const a = await fx.server(e);
    await a.ok("term_open", { name: "bg2" });
    const r = await a.ok("term_exec", { session: "bg2", command: "nohup sleep 1002 >/dev/null 2>&1 & echo $!" });
    const orphan = Number(String(r.output).trim().split("\n").pop());
    expect(alive(orphan)).toBe(true);
    const st = await daemonStatus(e);
    process.kill(st!.pid, "SIGKILL");
    await waitFor(() => !alive(st!.pid), 5000, "the daemon to die");
    expect(alive(orphan)).toBe(true);

    const stop = await runCli(e, ["daemon", "--stop"]);
    expect(stop.code).toBe(0);
    try {
      expect(stop.stdout).toContain("ended 1 process(es) a dead daemon left");
      await waitFor(() => !alive(orphan), 10_000, "the orphan to be reaped");
    } finally {
      killAll([orphan]);
    }
  }, 60_000);

  test("daemons whose sockets share a directory: starting or stopping one spares the other's sessions", async () => {
    const a = fx.env();
    const sharedDir = join(a.XDG_RUNTIME_DIR!, "ptyhub");
    const b = fx.env({ PTYHUB_SOCKET: join(sharedDir, "b.sock") });
    const sa = await fx.server(a, "a");
    await sa.ok("term_open", { name: "live" });
    const shell = Number((await sa.ok("term_exec", { session: "live", command: "echo $$" })).output);
    const job = await sa.ok("term_exec", { session: "live", command: "nohup sleep 1003 >/dev/null 2>&1 & echo $!" });
    const orphan = Number(String(job.output).trim().split("\n").pop());
    try {
      // Starting daemon b (its first term_open), then stopping it, then `--stop` with no b running.
      const sb = await fx.server(b, "b");
      await sb.ok("term_open", { name: "other" });
      expect((await runCli(b, ["daemon", "--stop"])).code).toBe(0);
      const again = await runCli(b, ["daemon", "--stop"]);
      expect(again.stdout).toContain("no daemon is running");
      expect(again.stdout).not.toContain("ended");
      expect(alive(shell)).toBe(true);
      expect(alive(orphan)).toBe(true);
      expect((await sa.ok("term_exec", { session: "live", command: "echo still-$((6*7))" })).output).toBe("still-42");

      // Once daemon a is provably dead, what it left is anyone's to end, b's `--stop` included.
      const st = await daemonStatus(a);
      process.kill(st!.pid, "SIGKILL");
      await waitFor(() => !alive(st!.pid), 5000, "daemon a to die");
      const reap = await runCli(b, ["daemon", "--stop"]);
      expect(reap.stdout).toContain("ended 1 process(es) a dead daemon left");
      await waitFor(() => !alive(orphan), 10_000, "daemon a's orphan to be reaped");
    } finally {
      killAll([orphan]);
    }
  }, 60_000);
});

afterAll(fx.cleanup);

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  await fx.cleanup();
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
