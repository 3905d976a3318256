/**
 * The emulator parses through xterm's private `_core.writeSync` (see src/terminal/xterm-internals.ts).
 * These tests fail the day an @xterm/headless upgrade removes or changes what we rely on.
 */
import { describe, expect, test } from "bun:test";
import { Terminal } from "@xterm/headless";
import { xtermCore } from "../../src/terminal/xterm-internals.ts";

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

  test("an object without the internals is refused with a pointer to the module", () => {
    const fake = Object.create(Terminal.prototype) as Terminal;
    expect(() => xtermCore(fake)).toThrow(/xterm-internals\.ts/);
  });
});
