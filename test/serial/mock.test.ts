/**
 * The serial backend over @serialport/binding-mock: fast, deterministic checks of what the
 * backend itself decides — settings handed to the binding, writes of one turn sent as one, the
 * break framing, a lost device with and without reconnect — with no pty or timing involved.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MockBinding, type MockPortBinding } from "@serialport/binding-mock";
import type { SetOptions } from "@serialport/bindings-interface";
import { openSerialBackend, type SerialBackend } from "../../src/backend/serial/serial-backend.ts";
import type { ExitInfo } from "../../src/backend/backend.ts";
import { parseSerialSpec } from "../../src/backend/serial/settings.ts";
import type { LineBinding } from "../../src/backend/serial/port.ts";
import { waitFor } from "../helpers/wait.ts";

/** The mock binding answers within a few event-loop turns; this is only the failure bound. */
const MOCK_WAIT_MS = 5000;

const PATH = "/dev/ttyMOCK0";
const backends: SerialBackend[] = [];
/** Every port the backend opened, newest last: the test's handle on the "device". */
const opened: MockPortBinding[] = [];
const binding: LineBinding = {
  list: () => MockBinding.list(),
  open: async (options) => {
    const port = await MockBinding.open(options);
    opened.push(port);
    return port;
  },
};

afterEach(async () => {
  while (backends.length) await backends.pop()!.close();
  opened.length = 0;
  MockBinding.reset();
});

function mockPort(): MockPortBinding {
  const port = opened.at(-1);
  if (!port) throw new Error("no mock port open");
  return port;
}

async function open(raw: Record<string, unknown>, opts: { echo?: boolean } = {}): Promise<SerialBackend> {
  MockBinding.createPort(PATH, { echo: opts.echo ?? false, record: true });
  const b = await openSerialBackend(parseSerialSpec({ path: PATH, ...raw }), binding);
  backends.push(b);
  return b;
}

function collect(b: SerialBackend): { text: () => string; exit: Promise<ExitInfo> } {
  let text = "";
  b.onData((d) => (text += new TextDecoder().decode(d)));
  return { text: () => text, exit: new Promise((resolve) => b.onExit(resolve)) };
}

describe("serial backend over the mock binding", () => {
  test("the line settings reach the binding as asked (7E2, RTS/CTS, 9600)", async () => {
    const b = await open({ baud: 9600, data_bits: 7, parity: "even", stop_bits: 2, flow: "rtscts" });
    expect(mockPort().openOptions).toMatchObject({
      path: PATH,
      baudRate: 9600,
      dataBits: 7,
      parity: "even",
      stopBits: 2,
      rtscts: true,
      xon: false,
      lock: true,
    });
    expect(b.target).toBe(`${PATH}@9600`);
  });

  test("writes of one event-loop turn go out as one write, in order, with Enter mapped by `newline`", async () => {
    const b = await open({ newline: "crlf" });
    b.write("sleep 100\r");
    b.write("\x03");
    const port = mockPort();
    await waitFor(() => port.recording.length > 0, MOCK_WAIT_MS, "the write");
    expect(port.recording.toString("latin1")).toBe("sleep 100\r\n\x03");
    expect(port.lastWrite?.toString("latin1")).toBe("sleep 100\r\n\x03");
  });

  test("device output reaches the session; the device's echo is just output", async () => {
    const b = await open({}, { echo: true });
    const out = collect(b);
    b.write("hi\r");
    await waitFor(() => out.text() === "hi\r", MOCK_WAIT_MS, "the echo");
    mockPort().emitData("there\r\n");
    await waitFor(() => out.text().includes("there"), MOCK_WAIT_MS, "the data");
    expect(out.text()).toBe("hi\rthere\r\n");
  });

  test("a break asserts and releases the break condition, keeping DTR/RTS", async () => {
    const b = await open({});
    const port = mockPort();
    const calls: SetOptions[] = [];
    const set = port.set.bind(port);
    port.set = async (o: SetOptions) => {
      calls.push({ ...o });
      return set(o);
    };
    await b.sendBreak(20);
    expect(calls).toEqual([
      { dtr: true, rts: true, brk: true },
      { dtr: true, rts: true, brk: false },
    ]);
    const st = await b.control({ dtr: false, pulseMs: 10 });
    expect(calls.slice(2)).toEqual([
      { dtr: false, rts: true, brk: false },
      { dtr: true, rts: true, brk: false },
    ]);
    expect(st).toMatchObject({ dtr: true, rts: true, cts: true });
  });

  test("typed data goes out before a break that follows it, even while an earlier write is in flight", async () => {
    const b = await open({});
    const port = mockPort();
    const events: string[] = [];
    const write = port.write.bind(port);
    const set = port.set.bind(port);
    // A slow line: each write takes a while to be accepted.
    port.write = async (data: Buffer) => {
      events.push(`write ${data.toString("latin1")}`);
      await Bun.sleep(20);
      return write(data);
    };
    port.set = async (o: SetOptions) => {
      events.push(`break ${o.brk ? "on" : "off"}`);
      return set(o);
    };
    b.write("first\r");
    await new Promise((r) => setImmediate(r)); // the first flush starts
    b.write("second\r");
    await b.sendBreak(5);
    expect(events).toEqual(["write first\r", "write second\r", "break on", "break off"]);
  });

  test("a lost device ends the session with the reason (no reconnect)", async () => {
    const b = await open({});
    const out = collect(b);
    await mockPort().close();
    const info = await out.exit;
    expect(info.reason).toContain("device disconnected");
    expect(info.exitCode).toBeNull();
  });

  test("with reconnect, a lost device is reopened and data flows again", async () => {
    const b = await open({ reconnect: true });
    const out = collect(b);
    const firstPort = mockPort();
    await firstPort.close();
    // The mock's device is still "present", so the backend reopens it at once.
    await waitFor(() => b.generation === 1, MOCK_WAIT_MS, "the reopen");
    expect(b.connectionState()).toBeNull();
    mockPort().emitData("after replug");
    await waitFor(() => out.text().includes("after replug"), MOCK_WAIT_MS, "data after the reopen");
  });
});
