/** The real MCP SDK client against `bun src/cli.ts` over stdio. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stopDaemon } from "../helpers/daemon.ts";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";

let mcp: StdioMcp;
/**
 * Time for a test that starts and ends its own server, shell and job: several seconds on a loaded
 * 2-core machine, past bun's 5 s default (whose timeout also kills this file's shared server).
 */
const OWN_SERVER_TEST_MS = 30_000;
/** How long a program may take to start, or a server, its shell and their job to be gone, on a loaded machine. */
const GONE_WAIT_MS = 5000;
beforeAll(async () => {
  mcp = await startMcp({ env: { PTYHUB_SHELL: "/bin/bash" } });
});
afterAll(async () => {
  await mcp.close();
  await stopDaemon();
});

/** A session's state as term_list reports it. */
async function stateOf(session: string): Promise<string | undefined> {
  const list = (await mcp.ok("term_list", {})).sessions as Array<{ session: string; state: string }>;
  return list.find((x) => x.session === session)?.state;
}

describe("MCP server over stdio", () => {
  test("tools/list declares every tool with input and output schemas", async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      "term_close",
      "term_exec",
      "term_list",
      "term_open",
      "term_read",
      "term_resize",
      "term_secret",
      "term_send",
      "term_serial",
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description!.length).toBeGreaterThan(40);
    }
  });

  test("term_exec: structured result plus a compact text rendering with output last", async () => {
    const r = await mcp.raw("term_exec", { command: "echo hi" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "hi", via: "shell" });
    const text = (r.content[0] as { text: string }).text;
    expect(text.startsWith("[done · exit 0")).toBe(true);
    expect(text.endsWith("\nhi")).toBe(true);
  });

  test("a long output's result matches the declared output schema (the SDK client validates it)", async () => {
    const r = await mcp.ok("term_exec", { command: "seq 1 200000", timeout_ms: 60_000 });
    expect(r.status).toBe("done");
    expect(Number.isInteger(r.truncated.original_tokens)).toBe(true);
    expect(r.output.split("\n").at(-1)).toBe("200000");
  });

  test("errors carry code, message, hint and retryable", async () => {
    const cases: Array<[string, unknown, string]> = [
      ["term_send", { session: "main", text: "x", until: "([" }, "INVALID_REGEX"],
      ["term_send", { session: "main", keys: ["ctrl+nope"] }, "INVALID_ARGUMENT"],
      ["term_read", { session: "no-such" }, "SESSION_NOT_FOUND"],
      ["term_open", { cwd: "/no/such/dir" }, "CWD_NOT_FOUND"],
      ["term_open", { name: "../x" }, "INVALID_ARGUMENT"],
      ["term_exec", { command: "" }, "INVALID_ARGUMENT"],
      ["term_exec", { command: "echo", timeout_ms: -1 }, "INVALID_ARGUMENT"],
      ["term_exec", { command: "echo", bogus: true }, "INVALID_ARGUMENT"],
      // A NUL byte cannot reach a shell or an argv: refused, not dropped (or a spawn error).
      ["term_exec", { command: "echo a\u0000b" }, "INVALID_ARGUMENT"],
      ["term_open", { command: "/bin/echo\u0000x" }, "INVALID_ARGUMENT"],
      ["term_open", { command: "/bin/echo", args: ["a\u0000b"] }, "INVALID_ARGUMENT"],
      ["term_resize", { session: "main", cols: 5, rows: 5 }, "INVALID_ARGUMENT"],
      ["no_such_tool", {}, "INVALID_ARGUMENT"],
    ];
    for (const [tool, args, code] of cases) {
      const r = await mcp.raw(tool, args);
      expect({ tool, args, isError: r.isError }).toEqual({ tool, args, isError: true });
      const err = (
        r.structuredContent as { error: { code: string; message: string; hint: string; retryable: boolean } }
      ).error;
      expect({ tool, args, code: err.code }).toEqual({ tool, args, code });
      expect(err.hint.length).toBeGreaterThan(5);
      expect(typeof err.retryable).toBe("boolean");
      expect((r.content[0] as { text: string }).text.startsWith(`${code}: `)).toBe(true);
    }
  });

  test("calls run concurrently: while term_send waits on A, a read of B returns at once; ctrl+c to A ends both calls on A", async () => {
    await mcp.ok("term_open", { name: "A", persistent: false });
    await mcp.ok("term_open", { name: "B", persistent: false });
    const t0 = performance.now();
    const waiting = mcp.ok("term_send", { session: "A", text: "sleep 100", until: "NEVER_PRINTED", wait_ms: 30_000 });
    // Once A runs the command, the call on A is waiting for its regex.
    await waitFor(async () => (await stateOf("A")) === "running", GONE_WAIT_MS, "sleep to run in A");
    const read = await mcp.ok("term_read", { session: "B", mode: "screen" });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(read.session).toBe("B");
    const stop = await mcp.ok("term_send", { session: "A", keys: ["ctrl+c"] });
    expect(stop.via).toBe("shell");
    expect(performance.now() - t0).toBeLessThan(3000);
    // The first call never saw its regex, but the command it waited on ended: it returns now,
    // with the exit code and matched null, instead of waiting out its 30 s.
    const waited = await waiting;
    expect(waited).toMatchObject({ via: "shell", exit_code: 130, matched: null });
    expect(performance.now() - t0).toBeLessThan(10_000);
  }, 60_000);

  test("a waiting call honours MCP cancellation", async () => {
    const ac = new AbortController();
    const t0 = performance.now();
    const pending = mcp.raw(
      "term_read",
      { session: "B", mode: "new", until: "NEVER", wait_ms: 60_000 },
      { signal: ac.signal },
    );
    // Nothing outside the server shows a pending read: this pause only makes it likely that the
    // cancellation reaches a call the server is holding, rather than one the SDK has not sent.
    await Bun.sleep(200);
    ac.abort();
    await expect(pending).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(3000);
    const ok = await mcp.ok("term_exec", { session: "B", command: "echo still-fine" });
    expect(ok.output).toBe("still-fine");
  });

  test("fuzz: 1,000 malformed or random calls, then a correct term_exec still works", async () => {
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const tools = [
      "term_open",
      "term_exec",
      "term_send",
      "term_read",
      "term_list",
      "term_close",
      "term_resize",
      "term_secret",
      "bogus",
      "",
    ];
    const values: unknown[] = [
      null,
      true,
      -1,
      0,
      1e12,
      NaN,
      "",
      "main",
      "../etc",
      "x".repeat(5000),
      "\u0000\u001b[2J",
      [],
      [1, "a"],
      {},
      { a: { b: [] } },
      "([",
      "ctrl+zz",
      "🙂",
    ];
    const keys = [
      "session",
      "command",
      "text",
      "keys",
      "until",
      "mode",
      "from",
      "to",
      "wait_ms",
      "max_tokens",
      "cols",
      "rows",
      "name",
      "cwd",
      "env",
      "args",
      "signal",
      "timeout_ms",
      "enter",
      "zzz",
    ];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++) {
      const args: Record<string, unknown> = {};
      const n = Math.floor(rand() * 4);
      for (let k = 0; k < n; k++) args[pick(keys)] = pick(values);
      // Keep the fuzz from waiting: never let it wait long or open unbounded sessions.
      if ("wait_ms" in args || rand() < 0.5) args.wait_ms = 0;
      if ("timeout_ms" in args) args.timeout_ms = 0;
      const tool = pick(tools);
      if (tool === "term_open" || tool === "term_exec" || tool === "term_close") {
        // Those with valid arguments would start real shells; keep them invalid on purpose.
        args.bogus_key = true;
      }
      calls.push(mcp.raw(tool, rand() < 0.05 ? pick(values) : args).catch((e) => e));
      if (calls.length >= 50) await Promise.all(calls.splice(0));
    }
    await Promise.all(calls);
    const r = await mcp.ok("term_exec", { command: "echo after-fuzz" });
    expect(r).toMatchObject({ status: "done", exit_code: 0, output: "after-fuzz" });
  }, 60_000);
});

describe("server exit ends its in-process sessions", () => {
  for (const how of ["stdin closed", "SIGTERM", "SIGINT"] as const) {
    test(
      `on ${how}: no orphaned shells or jobs`,
      async () => {
        const m = await startMcp({ env: { PTYHUB_SHELL: "/bin/bash" } });
        const open = await m.ok("term_open", { name: "s1", persistent: false });
        const job = await m.ok("term_exec", { session: "s1", command: "sleep 300 & echo PID=$!" });
        const jobPid = Number(/PID=(\d+)/.exec(job.output)![1]);
        expect(alive(open.pid)).toBe(true);
        expect(alive(jobPid)).toBe(true);
        const serverPid = m.pid!;
        if (how === "stdin closed") await m.close();
        else process.kill(serverPid, how);
        await waitFor(() => !alive(serverPid), GONE_WAIT_MS, `process ${serverPid} to be gone`);
        await waitFor(() => !alive(open.pid), GONE_WAIT_MS, `process ${open.pid} to be gone`);
        await waitFor(() => !alive(jobPid), GONE_WAIT_MS, `process ${jobPid} to be gone`);
        if (how !== "stdin closed") await m.close().catch(() => undefined);
      },
      OWN_SERVER_TEST_MS,
    );
  }
});

describe("resources", () => {
  test("sessions, screen and history are readable; subscribers hear when a command finishes", async () => {
    const { ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    await mcp.ok("term_open", { name: "res", persistent: false });
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toContain("ptyhub://sessions/res/screen");
    const list = await mcp.client.readResource({ uri: "ptyhub://sessions" });
    expect(
      JSON.parse((list.contents[0] as { text: string }).text).sessions.some(
        (s: { session: string }) => s.session === "res",
      ),
    ).toBe(true);

    // The notification itself is the barrier (no polling with a time budget that load outruns).
    const { promise: updated, resolve: heard } = Promise.withResolvers<string>();
    mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard(n.params.uri));
    await mcp.client.subscribeResource({ uri: "ptyhub://sessions/res/screen" });
    await mcp.ok("term_exec", { session: "res", command: "echo resource-check" });
    expect(await updated).toBe("ptyhub://sessions/res/screen");
    const screen = await mcp.client.readResource({ uri: "ptyhub://sessions/res/screen" });
    expect((screen.contents[0] as { text: string }).text).toContain("resource-check");
    const history = await mcp.client.readResource({ uri: "ptyhub://sessions/res/history" });
    expect((history.contents[0] as { text: string }).text).toContain("resource-check");
    await expect(mcp.client.readResource({ uri: "ptyhub://nope" })).rejects.toThrow();
    await mcp.ok("term_close", { session: "res" });
  });
});
