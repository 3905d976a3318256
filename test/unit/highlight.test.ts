/**
 * Which cells count as highlighted (src/terminal/highlight.ts), on looks given by hand, and the
 * marks on a real emulator's screen. The real TUIs against tmux are in test/oracle/highlight.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { Emulator } from "../../src/terminal/emulator.ts";
import { highlightedCells } from "../../src/terminal/highlight.ts";

const enc = new TextEncoder();

/** A screen of `rows` rows from one string per row, one letter per cell's look ("." is plain). */
function looks(rows: string[]): string[][] {
  return rows.map((r) => [...r]);
}
const lit = (rows: boolean[][]) => rows.map((r) => r.map((b) => (b ? "#" : ".")).join(""));

describe("highlightedCells", () => {
  test("a rare look is a highlight; plain never is", () => {
    const screen = looks(["..........", "..rrr.....", "..........", ".........."]);
    expect(lit(highlightedCells(screen, "."))).toEqual(["..........", "..###.....", "..........", ".........."]);
  });

  test("a look that covers a large share of the screen is a surface, not a highlight", () => {
    // mc's blue panels: the blue is most of the screen, the cyan bar is the selection.
    const screen = looks(["bbbbbbbbbb", "bbcccccbbb", "bbbbbbbbbb", "bbbbbbbbbb"]);
    expect(lit(highlightedCells(screen, "."))).toEqual(["..........", "..#####...", "..........", ".........."]);
  });

  test("the backdrop's look inside a box is a highlight (dialog's current item)", () => {
    // b: the blue backdrop; g: the grey box, less common; the item in blue inside the box.
    const screen = looks(["bbbbbbbbbb", "bggggggggb", "bggbbbgggb", "bggggggggb", "bbbbbbbbbb"]);
    const marked = lit(highlightedCells(screen, "."));
    expect(marked[2]).toBe("...###....");
    // Neither the box nor the backdrop around it.
    expect(marked[1]).toBe("..........");
  });
});

describe("markedScreenLines", () => {
  test("reverse video and a background colour are marked; blanks ending a run stay outside", () => {
    const em = new Emulator({ cols: 40, rows: 6 });
    em.ingest(enc.encode("  one\r\n\x1b[7m  two      \x1b[27m\r\n  three \x1b[44mmatch\x1b[49m end\r\n"));
    const rows = em.markedScreenLines();
    expect(rows.slice(0, 3)).toEqual(["  one", "⟦  two⟧", "  three ⟦match⟧ end"]);
    // The plain text the waits and patterns read is unchanged.
    expect(
      em
        .screenLines()
        .slice(0, 3)
        .map((r) => r.trimEnd()),
    ).toEqual(["  one", "  two", "  three match end"]);
    em.dispose();
  });

  test("wide characters inside a mark keep their text", () => {
    const em = new Emulator({ cols: 40, rows: 6 });
    em.ingest(enc.encode("\x1b[7m日本\x1b[27m plain\r\n"));
    expect(em.markedScreenLines()[0]).toBe("⟦日本⟧ plain");
    em.dispose();
  });
});
