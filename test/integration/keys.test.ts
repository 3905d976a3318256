/**
 * Named keys reach a real program byte for byte, modifiers included (issue 22, item 8): a
 * python3 in raw mode prints the hex of each read.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const HEX_ECHO = [
  "import os, sys, tty",
  "tty.setraw(0)",
  "sys.stdout.write('ready\\r\\n'); sys.stdout.flush()",
  "while True:",
  "    b = os.read(0, 64)",
  "    if b == b'q': break",
  "    sys.stdout.write('got ' + b.hex() + '\\r\\n'); sys.stdout.flush()",
].join("\n");

const hex = (s: string) => Buffer.from(s, "latin1").toString("hex");

describe("keys reach the program", () => {
  test("shift+f1…f4, page keys in any spelling, ctrl+shift+letter: the program reads xterm's bytes", async () => {
    const o = await host.open({ name: "hx", command: "python3", args: ["-c", HEX_ECHO] }, ctx);
    expect(o.output).toContain("ready");
    const cases: Array<[string, string]> = [
      ["shift+f1", "\x1b[1;2P"],
      ["shift+f4", "\x1b[1;2S"],
      ["ctrl+f2", "\x1b[1;5Q"],
      ["page_up", "\x1b[5~"],
      ["PgDn", "\x1b[6~"],
      ["prior", "\x1b[5~"],
      ["shift+enter", "\x1b[27;2;13~"],
      ["ctrl+shift+a", "\x1b[27;6;65~"],
    ];
    for (const [key, bytes] of cases) {
      const r = await host.send({ session: "hx", keys: [key], until: `got [0-9a-f]+`, ...sendDefaults }, ctx);
      expect({ key, output: r.output }).toEqual({ key, output: `got ${hex(bytes)}` });
    }
    await host.close({ session: "hx" }, ctx);
  });
});
