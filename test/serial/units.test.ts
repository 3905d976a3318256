/**
 * The pure parts of serial lines: termios bits for every setting on both OS layouts, settings
 * validation, picocom-style newline mapping, and "More" prompts as pager state.
 */
import { describe, expect, test } from "bun:test";
import { serialConstants } from "../../src/backend/serial/constants.ts";
import { decodeLine, encodeLine, isCustomRate, isRaw } from "../../src/backend/serial/termios.ts";
import {
  DEFAULT_LINE,
  FLOWS,
  PARITIES,
  parseSerialSpec,
  type LineSettings,
} from "../../src/backend/serial/settings.ts";
import { mapNewlines } from "../../src/backend/serial/serial-backend.ts";
import { classify } from "../../src/terminal/classify.ts";

const linux = serialConstants("linux")!;
const darwin = serialConstants("darwin")!;

describe("termios", () => {
  for (const [os, c] of [
    ["linux", linux],
    ["darwin", darwin],
  ] as const) {
    test(`${os}: every setting survives encode → decode, and the line is raw`, () => {
      for (const parity of PARITIES) {
        if (os === "darwin" && (parity === "mark" || parity === "space")) continue; // no CMSPAR on macOS
        for (const flow of FLOWS) {
          for (const dataBits of [5, 6, 7, 8] as const) {
            for (const stopBits of [1, 2] as const) {
              const s: LineSettings = { baud: 250000, dataBits, parity, stopBits, flow };
              // Start from a cooked line (echo, icanon, opost set) to see them cleared.
              const buf = new Uint8Array(c.termiosSize).fill(0xff);
              encodeLine(buf, c, s);
              expect(decodeLine(buf, c)).toEqual(s);
              expect(isRaw(buf, c)).toBe(true);
              expect(buf[c.ccOffset + c.VMIN]).toBe(1);
              expect(buf[c.ccOffset + c.VTIME]).toBe(0);
            }
          }
        }
      }
    });
  }

  test("linux: 7E2 at 9600 with RTS/CTS is the exact cflag bits, with the rate as its B-code (B9600)", () => {
    const buf = new Uint8Array(linux.termiosSize);
    encodeLine(buf, linux, { baud: 9600, dataBits: 7, parity: "even", stopBits: 2, flow: "rtscts" });
    const dv = new DataView(buf.buffer);
    const cflag = dv.getUint32(8, true);
    // CS7 | CSTOPB | CREAD | PARENB | HUPCL | CLOCAL | B9600 | CRTSCTS
    expect(cflag).toBe((0o40 | 0o100 | 0o200 | 0o400 | 0o2000 | 0o4000 | 0o15 | 0x80000000) >>> 0);
    expect(dv.getUint32(0, true)).toBe(0); // iflag: no IXON/IXOFF, no ICRNL
    expect(isCustomRate(linux, 9600)).toBe(false);
  });

  test("linux: standard rates use their B-codes, others BOTHER with the rate in c_ispeed/c_ospeed", () => {
    const codes: [number, number][] = [
      [50, 0o1],
      [38400, 0o17],
      [57600, 0o10001],
      [115200, 0o10002],
      [4000000, 0o10017],
    ];
    for (const [baud, code] of codes) {
      const buf = new Uint8Array(linux.termiosSize);
      encodeLine(buf, linux, { baud, dataBits: 8, parity: "none", stopBits: 1, flow: "none" });
      expect(new DataView(buf.buffer).getUint32(8, true) & linux.CBAUD).toBe(code);
      expect(decodeLine(buf, linux).baud).toBe(baud);
    }
    const custom = new Uint8Array(linux.termiosSize);
    encodeLine(custom, linux, { baud: 250000, dataBits: 8, parity: "none", stopBits: 1, flow: "none" });
    const dv = new DataView(custom.buffer);
    expect(dv.getUint32(8, true) & linux.CBAUD).toBe(0o10000);
    expect(dv.getUint32(36, true)).toBe(250000);
    expect(dv.getUint32(40, true)).toBe(250000);
    expect(isCustomRate(linux, 250000)).toBe(true);
  });
});

describe("settings", () => {
  test("defaults are 115200 8N1, CR newline, no reconnect", () => {
    expect(parseSerialSpec({ path: "/dev/ttyUSB0" })).toEqual({
      path: "/dev/ttyUSB0",
      ...DEFAULT_LINE,
      newline: "cr",
      reconnect: false,
    });
  });

  test("bad values are INVALID_ARGUMENT with a hint", () => {
    const bad = [
      {},
      { path: "" },
      { path: "/x", baud: 49 },
      { path: "/x", baud: 9600.5 },
      { path: "/x", data_bits: 4 },
      { path: "/x", parity: "maybe" },
      { path: "/x", stop_bits: 1.5 },
      { path: "/x", flow: "hw" },
      { path: "/x", newline: "nl" },
      { path: "/x", reconnect: "yes" },
      { path: "/x", speed: 9600 },
    ];
    for (const raw of bad) {
      let err: unknown = null;
      try {
        parseSerialSpec(raw);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: "INVALID_ARGUMENT", hint: expect.any(String) });
    }
  });
});

describe("newline mapping (picocom --omap)", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  test("cr keeps CR; lf maps CR to LF; crlf maps CR to CR LF; other bytes untouched", () => {
    expect(mapNewlines(enc("ls\r"), "cr")).toEqual(enc("ls\r"));
    expect(mapNewlines(enc("ls\r"), "lf")).toEqual(enc("ls\n"));
    expect(mapNewlines(enc("a\rb\r"), "crlf")).toEqual(enc("a\r\nb\r\n"));
    expect(mapNewlines(enc("a\nb\x03"), "crlf")).toEqual(enc("a\nb\x03"));
  });
});

describe("More prompts", () => {
  const state = (beforeCursor: string) =>
    classify({ exited: false, atShellPrompt: null, beforeCursor, cursorOnLastRow: false, altScreen: false, tty: null });
  test("--More-- (busybox, Cisco) and ---(more)--- (Junos) are pagers away from the last row", () => {
    expect(state("--More--")).toBe("pager");
    expect(state(" --More-- ")).toBe("pager");
    expect(state("---(more 45%)---")).toBe("pager");
    expect(state("more output follows")).toBe("running");
  });
});
