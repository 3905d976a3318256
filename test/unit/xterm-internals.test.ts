/**
 * The emulator parses through xterm's private `_core.writeSync` (see src/terminal/xterm-internals.ts).
 * These tests fail the day an @xterm/headless upgrade removes or changes what we rely on.
 */
import { describe, expect, test } from "bun:test";
import { Terminal } from "@xterm/headless";
import { isRope } from "bun:jsc";
import { Emulator } from "../../src/terminal/emulator.ts";
import { lineText, readsInternals, xtermCore } from "../../src/terminal/xterm-internals.ts";

function newTerminal(): Terminal {
  return new Terminal({ cols: 40, rows: 5, allowProposedApi: true, logLevel: "off" });
}

describe("xterm internals the emulator relies on", () => {
  test("writeSync parses before it returns, with OSC handlers run mid-call", () => {
    const term = newTerminal();
    const core = xtermCore(term);
    const seen: string[] = [];
    term.parser.registerOscHandler(6973, (data) => {
      seen.push(`${data}@${term.buffer.active.cursorX}`);
      return true;
    });
    core.writeSync("abc\x1b]6973;mark\x07de");
    expect(seen).toEqual(["mark@3"]);
    expect(term.buffer.active.getLine(0)!.translateToString(true)).toBe("abcde");
    term.dispose();
  });

  test("the scroll region and the charset service are where the fast path reads them", () => {
    const term = newTerminal();
    const core = xtermCore(term);
    expect(core.buffer.scrollTop).toBe(0);
    expect(core.buffer.scrollBottom).toBe(4);
    core.writeSync("\x1b[2;4r");
    expect([core.buffer.scrollTop, core.buffer.scrollBottom]).toEqual([1, 3]);
    expect(core._charsetService.charset).toBeUndefined();
    core.writeSync("\x1b(0"); // DEC line drawing into G0
    expect(core._charsetService.charset).toBeDefined();
    term.dispose();
  });

  test("lineText reads xterm's cells and gives exactly translateToString(true)", () => {
    const term = new Terminal({ cols: 20, rows: 12, allowProposedApi: true, logLevel: "off" });
    const core = xtermCore(term);
    const rows = [
      "plain ascii",
      "wide 漢字 and ｶﾅ",
      "emoji 😀 pair",
      "combining e\u0301 and a\u0308",
      "trailing spaces   ",
      "a\x1b[5Cgap in the middle",
      "",
      "x".repeat(20) + "wrapped onto the next row",
      "\x1b[31mred\x1b[0m styled",
    ];
    core.writeSync(rows.join("\r\n"));
    let compared = 0;
    for (let y = 0; y < term.buffer.normal.length; y++) {
      const line = term.buffer.normal.getLine(y)!;
      expect(readsInternals(line)).toBe(true);
      expect(lineText(line)).toBe(line.translateToString(true));
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(rows.length);
    expect(lineText(term.buffer.normal.getLine(1)!)).toBe("wide 漢字 and ｶﾅ");
    expect(lineText(term.buffer.normal.getLine(4)!)).toBe("trailing spaces   ");
    term.dispose();
  });

  test("rows copied into history are flat strings, not xterm's per-cell ropes", () => {
    const em = new Emulator({ cols: 80, rows: 24, fastPath: false });
    const line = "flood flood flood flood flood flood flood flood";
    em.ingest(new TextEncoder().encode(`${line}\r\n`.repeat(100)));
    // What makes this matter: xterm's own conversion leaves one rope string per cell.
    expect(isRope(em.term.buffer.normal.getLine(0)!.translateToString(true))).toBe(true);
    const h = em.history;
    expect(h.size).toBeGreaterThan(50);
    // isRope first: comparing a rope's text flattens it.
    for (let r = h.firstRow; r < h.endRow; r++) expect(isRope(h.text(r))).toBe(false);
    for (let r = h.firstRow; r < h.endRow; r++) expect(h.text(r)).toBe(line);
    em.dispose();
  });

  test("an object without the internals is refused with a pointer to the module", () => {
    const fake = Object.create(Terminal.prototype) as Terminal;
    expect(() => xtermCore(fake)).toThrow(/xterm-internals\.ts/);
  });
});
