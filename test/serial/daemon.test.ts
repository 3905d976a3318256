/**
 * Serial sessions through real MCP servers (the SDK client over stdio) and the real daemon: the
 * line is held by the daemon, so a kill -9 of the MCP server loses nothing — output the device
 * sent meanwhile is read afterwards, term_exec and term_serial carry on — and the tools'
 * schemas, texts and errors are what a model sees.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { CLI } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { errorCode, fixture } from "../daemon/helpers.ts";
import { ptyPair, shellLine, tempDir, type Line } from "./helpers.ts";

const fx = fixture();
const lines: Line[] = [];
afterEach(async () => {
  await fx.cleanup();
  while (lines.length) await lines.pop()!.stop();
});
afterAll(fx.cleanup);

describe("serial sessions over MCP, hosted by the daemon", () => {
  test("survive a kill -9 of the MCP server: output sent meanwhile is read once, term_exec carries on", async () => {
    const line = await shellLine(tempDir());
    lines.push(line);
    const e = fx.env();
    const a = await fx.server(e);
    const opened = await a.ok("term_open", { name: "board", serial: { path: line.path, baud: 57600 } });
    expect(opened).toMatchObject({
      kind: "serial",
      target: `${line.path}@57600`,
      persistent: true,
      attach: "ptyhub attach board",
    });
    const first = await a.ok("term_exec", { session: "board", command: "echo one; (exit 4)" });
    expect(first).toMatchObject({ status: "done", exit_code: 4, output: "one", via: "marker" });
    // Output that arrives while no MCP server is connected.
    await a.ok("term_send", { session: "board", text: "sleep 0.5; echo while-away", wait_ms: 100 });
    await a.kill();

    const b = await fx.server(e);
    const r = await b.ok("term_read", { session: "board", until: "while-away", wait_ms: 10_000 });
    expect(
      String(r.output)
        .split("\n")
        .filter((l) => l === "while-away"),
    ).toHaveLength(1);
    const again = await b.ok("term_exec", { session: "board", command: "echo two; false" });
    expect(again).toMatchObject({ status: "done", exit_code: 1, output: "two" });
    const status = await b.ok("term_serial", { session: "board", baud: 115200 });
    expect(status).toMatchObject({ session: "board", baud: 115200, data_bits: 8, parity: "none", dtr: null });
    const listed = await b.call("term_list", { serial_ports: true });
    expect(listed.isError).toBe(false);
    expect(listed.data.sessions).toEqual([
      expect.objectContaining({ session: "board", kind: "serial", state: "prompt" }),
    ]);
    expect(Array.isArray(listed.data.serial_ports)).toBe(true);
    expect(listed.text).toContain("[serial ports]");
    await b.ok("term_close", { session: "board" });
  }, 60_000);

  test("a human attaches to the line: sees it, types into it, detaches with ctrl+\\", async () => {
    const line = await shellLine(tempDir());
    lines.push(line);
    const e = fx.env();
    const a = await fx.server(e);
    await a.ok("term_open", { name: "tty", serial: { path: line.path } });
    await a.ok("term_exec", { session: "tty", command: "echo before-attach" });
    let seen = "";
    const human = Bun.spawn([process.execPath, CLI, "attach", "tty"], {
      env: e,
      terminal: { cols: 100, rows: 30, data: (_t, d) => (seen += Buffer.from(d).toString("utf8")) },
    });
    try {
      // The replayed screen shows what the line printed before the human came.
      await waitFor(() => seen.includes("before-attach"), 10_000, "the replayed screen");
      human.terminal!.write("echo $((6*7))-from-human\r");
      await waitFor(() => seen.includes("42-from-human"), 10_000, "the human's command output");
      // The agent reads what the human's command printed (it had arrived: no wait needed).
      const r = await a.ok("term_read", { session: "tty", wait_ms: 0 });
      expect(String(r.output).split("\n")).toContain("42-from-human");
      human.terminal!.write("\x1c");
      expect(await human.exited).toBe(0);
    } finally {
      human.kill();
      await human.exited;
    }
    const listed = (await a.ok("term_list")).sessions as Array<{ session: string; alive: boolean }>;
    expect(listed).toEqual([expect.objectContaining({ session: "tty", alive: true })]);
  }, 60_000);

  test("faults reach the model as codes with hints; schema errors change nothing", async () => {
    const line = await ptyPair(tempDir());
    lines.push(line);
    const e = fx.env();
    const a = await fx.server(e);
    const missing = await a.call("term_open", { serial: { path: `${line.path}-missing` } });
    expect(errorCode(missing)).toBe("SERIAL_OPEN_FAILED");
    expect(missing.text).toContain("term_list {serial_ports: true}");
    const bad = await a.call("term_open", { serial: { path: line.path, parity: "sometimes" } });
    expect(bad.isError).toBe(true);
    await a.ok("term_open", { name: "held", serial: { path: line.path } });
    const busy = await a.call("term_open", { name: "other", serial: { path: line.path } });
    expect(errorCode(busy)).toBe("SERIAL_OPEN_FAILED");
    expect(busy.text).toContain("in use");
    const notSerial = await a.call("term_serial", { session: "nope", baud: 9600 });
    expect(errorCode(notSerial)).toBe("SESSION_NOT_FOUND");
    const sessions = (await a.ok("term_list")).sessions as Array<{ session: string }>;
    expect(sessions.map((s) => s.session)).toEqual(["held"]);
  }, 60_000);
});
