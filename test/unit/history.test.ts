import { describe, expect, test } from "bun:test";
import { RowHistory } from "../../src/terminal/history.ts";

describe("row history", () => {
  test("absolute row and line numbers survive eviction", () => {
    const h = new RowHistory(100, 10, 1_000_000);
    for (let i = 1; i <= 250; i++) h.push(`row ${i}`, false);
    expect(h.endRow).toBe(250);
    expect(h.size).toBe(100);
    expect(h.firstRow).toBe(150);
    expect(h.text(150)).toBe("row 151");
    expect(h.lineNo(150)).toBe(151);
    expect(h.firstLineNo).toBe(151);
    expect(h.rowOfLine(200)).toBe(199);
  });

  test("sizes of ranges of kept rows, across ring growth and eviction", () => {
    const h = new RowHistory(300, 10, 1_000_000);
    const text = (i: number) => "x".repeat(i % 17);
    for (let i = 0; i < 1000; i++) h.push(text(i), false);
    const sum = (from: number, to: number) => {
      let n = 0;
      for (let r = from; r < to; r++) n += h.text(r).length;
      return n;
    };
    for (const [from, to] of [
      [700, 1000],
      [700, 701],
      [850, 999],
      [900, 900],
      [999, 1000],
    ] as const) {
      expect(h.charsBetween(from, to)).toBe(sum(from, to));
    }
  });

  test("offsets from moving bases answer as the full numbers would, across growth and eviction", () => {
    // 4096 instead of 2^32 (above what the kept rows span: ≤ 300 lines, ≤ 2,000 + 40 characters):
    // the bases move every ~250 rows, as they would after ~4 billion.
    const small = new RowHistory(300, 20, 2_000, 4096);
    const full = new RowHistory(300, 20, 2_000);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const text = "x".repeat(next() % 40);
      const wrapped = next() % 3 === 0;
      small.push(text, wrapped);
      full.push(text, wrapped);
      if (i % 97 !== 0) continue;
      expect(small.firstRow).toBe(full.firstRow);
      expect(small.lastLineNo).toBe(full.lastLineNo);
      expect(small.firstLineNo).toBe(full.firstLineNo);
      expect(small.evictedChars).toBe(full.evictedChars);
      for (let r = full.firstRow; r < full.endRow; r++) {
        expect(small.lineNo(r)).toBe(full.lineNo(r));
        expect(small.wrapped(r)).toBe(full.wrapped(r));
        expect(small.charsBetween(r, full.endRow)).toBe(full.charsBetween(r, full.endRow));
      }
      const line = full.lineNo(full.endRow - 1) - 5;
      expect(small.rowOfLine(line)).toBe(full.rowOfLine(line));
    }
    expect(full.charsBetween(full.firstRow, full.endRow) + full.evictedChars).toBeGreaterThan(4096 * 15);
  });

  test("rows whose span cannot be held as offsets are evicted and counted", () => {
    const h = new RowHistory(100, 1, 1_000_000, 16);
    for (let i = 0; i < 3; i++) h.push("x".repeat(10), false);
    // The third row would start 20 ≥ 16 characters after the first: the first goes.
    expect(h.size).toBe(2);
    expect(h.evictedChars).toBe(10);
    expect([h.lineNo(1), h.lineNo(2)]).toEqual([2, 3]);
    expect(h.charsBetween(1, 3)).toBe(20);
  });

  test("wrapped rows share a line number", () => {
    const h = new RowHistory();
    h.push("a", false);
    h.push("b-part1", false);
    h.push("b-part2", true);
    h.push("c", false);
    expect([0, 1, 2, 3].map((r) => h.lineNo(r))).toEqual([1, 2, 2, 3]);
    expect(h.wrapped(2)).toBe(true);
    expect(h.wrapped(3)).toBe(false);
    expect(h.lastLineNo).toBe(3);
  });

  test("memory is bounded by characters beyond the minimum row count", () => {
    const h = new RowHistory(50_000, 100, 10_000);
    const long = "x".repeat(1000);
    for (let i = 0; i < 1000; i++) h.push(long, false);
    expect(h.size).toBe(100); // the floor wins over the character budget
    const h2 = new RowHistory(50_000, 10, 10_000);
    for (let i = 0; i < 1000; i++) h2.push(long, false);
    expect(h2.size).toBe(10);
    expect(h2.evictedChars).toBe(990 * 1000);
  });

  test("a head capture keeps the first evicted rows of its range and counts the rest", () => {
    const h = new RowHistory(10, 1, 1_000_000);
    for (let i = 0; i < 5; i++) h.push(`before ${i}`, false);
    const cap = h.capture(5, 3);
    for (let i = 0; i < 30; i++) h.push(`out ${i}`, false);
    expect(cap.rows.map((r) => r.text)).toEqual(["out 0", "out 1", "out 2"]);
    expect(cap.rows[0]!.lineNo).toBe(6);
    expect(cap.droppedChars).toBe("out 3".length * 7 + "out 10".length * 10);
    h.release(cap);
    for (let i = 0; i < 30; i++) h.push("after", false);
    expect(cap.rows.length).toBe(3);
  });

  test("rows pushed as slices of shared runs read, count, evict and capture as whole strings do", () => {
    // Small bases (see above) and a character budget, so eviction, growth and rebasing all happen.
    const sliced = new RowHistory(200, 20, 1_500, 4096);
    const whole = new RowHistory(200, 20, 1_500, 4096);
    const caps = [sliced.capture(3000, 25), whole.capture(3000, 25)] as const;
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let run = 0; run < 600; run++) {
      // A run as the fast path reads it: lines back to back in one string.
      const lines = Array.from({ length: 1 + (next() % 12) }, () => "abcdefghij".slice(0, next() % 11));
      const text = lines.join("\r\n");
      let at = 0;
      for (const line of lines) {
        const wrapped = next() % 5 === 0;
        sliced.pushSlice(text, at, at + line.length, wrapped);
        whole.push(line, wrapped);
        at += line.length + 2;
      }
      if (next() % 4 === 0) {
        sliced.push("own row", false);
        whole.push("own row", false);
      }
    }
    expect(sliced.firstRow).toBe(whole.firstRow);
    expect(sliced.evictedChars).toBe(whole.evictedChars);
    expect(sliced.evictedChars).toBeGreaterThan(0);
    for (let r = whole.firstRow; r < whole.endRow; r++) {
      expect(sliced.text(r)).toBe(whole.text(r));
      expect(sliced.lineNo(r)).toBe(whole.lineNo(r));
      expect(sliced.charsBetween(r, whole.endRow)).toBe(whole.charsBetween(r, whole.endRow));
    }
    expect(caps[0].rows.map((row) => row.text)).toEqual(caps[1].rows.map((row) => row.text));
    expect(caps[0].rows.length).toBe(25);
    expect(caps[0].droppedChars).toBe(caps[1].droppedChars);
  });
});
