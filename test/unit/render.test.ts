import { describe, expect, test } from "bun:test";
import { estimateTokens, MIN_TOKEN_BUDGET, render, rowsToLines, type Item } from "../../src/terminal/render.ts";

const lines = (texts: string[], first = 1): Item[] => texts.map((text, i) => ({ text, lineNo: first + i }));

describe("rendering with a token budget", () => {
  test("soft-wrapped rows join into one line; trailing blanks are trimmed", () => {
    const out = rowsToLines([
      { text: "abc", lineNo: 1 },
      { text: "def", lineNo: 1 },
      { text: "next   ", lineNo: 2 },
    ]);
    expect(out.map((l) => l.text)).toEqual(["abcdef", "next   "]);
    expect(render(out, 4000).output).toBe("abcdef\nnext");
  });

  test("runs of identical lines collapse with a count", () => {
    const r = render(lines(["start", "tick", "tick", "tick", "tick", "end"]), 4000);
    expect(r.output).toBe("start\ntick\n[… same line repeated 3 more times …]\nend");
    expect(r.truncated).toBeNull();
    expect(render(lines(["a", "a", "b"]), 4000).output).toBe("a\na\nb");
  });

  test("over budget: head and tail kept, omitted range reported in history line numbers", () => {
    const texts = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`);
    const r = render(lines(texts, 101), 500);
    expect(estimateTokens(r.output)).toBeLessThanOrEqual(500);
    expect(r.output.startsWith("line 1\nline 2\n")).toBe(true);
    expect(r.output.endsWith("line 10000")).toBe(true);
    const t = r.truncated!;
    expect(t.original_tokens).toBeGreaterThan(20_000);
    const shownHead = r.output.split("\n").findIndex((l) => l.startsWith("[…"));
    expect(t.from_line).toBe(101 + shownHead);
    const shownTail = r.output.split("\n").length - shownHead - 1;
    expect(t.to_line).toBe(101 + 10_000 - 1 - shownTail);
    expect(t.omitted_lines).toBe(t.to_line - t.from_line + 1);
    expect(r.output).toContain(`term_read mode:"history" from:${t.from_line} to:${t.to_line}`);
  });

  test("one huge line is cut rather than dropped", () => {
    const r = render(lines(["y".repeat(100_000)]), 100);
    expect(r.truncated).not.toBeNull();
    expect(estimateTokens(r.output)).toBeLessThanOrEqual(140);
    expect(r.output).toContain("yyyy");
  });

  test("gaps (evicted before anyone read them) are reported even within budget, never as fetchable", () => {
    const r = render(
      [
        { text: "head", lineNo: 1 },
        { gap: true, fromLine: 2, toLine: 50, chars: 400 },
        { text: "tail", lineNo: 51 },
      ],
      4000,
    );
    expect(r.output).toContain("49 lines (2–50) were dropped");
    expect(r.truncated).toBeNull();
  });

  test("a cut across a dropped gap names only lines history still keeps, and says the rest is gone", () => {
    // A command's head (1–3, kept by its capture), lines 4–900 dropped, 901–2000 still in history.
    const items = [
      ...lines(["1", "2", "3"]),
      { gap: true as const, fromLine: 4, toLine: 900, chars: 3600 },
      ...Array.from({ length: 1100 }, (_, i) => ({ text: `value ${901 + i} ${"x".repeat(i % 7)}`, lineNo: 901 + i })),
    ];
    // The smallest budget (the max_tokens 50): most of the head capture's lines are cut too.
    const r = render(items, 50, undefined, 901);
    const t = r.truncated!;
    expect(t.from_line).toBe(901);
    expect(t.omitted_lines).toBe(t.to_line - t.from_line + 1);
    expect(r.output).toMatch(/\(lines 3–\d+\), 3–900 gone from history/);
    expect(r.output.startsWith("1\n2\n[…")).toBe(true);
    expect(r.output).toContain(`read the rest with term_read mode:"history" from:901 to:${t.to_line}`);
    expect(estimateTokens(r.output)).toBeLessThanOrEqual(MIN_TOKEN_BUDGET);
    // With room for the head, the dropped gap shows as its own notice and the cut starts after it.
    const roomy = render(items, 200, undefined, 901);
    expect(roomy.output).toContain("897 lines (4–900) were dropped");
    expect(roomy.truncated!.from_line).toBeGreaterThanOrEqual(901);
  });

  test("lines before the first fetchable one (a head capture's) are never named, even without a gap", () => {
    const r = render(
      Array.from({ length: 3000 }, (_, i) => ({ text: `row ${i + 1}`, lineNo: i + 1 })),
      100,
      undefined,
      2500,
    );
    expect(r.truncated!.from_line).toBeGreaterThanOrEqual(2500);
    expect(r.output).toMatch(/, \d+–2499 gone from history; read the rest/);
    // Everything omitted gone: the notice says so and `truncated` names nothing.
    const allGone = render(
      Array.from({ length: 3000 }, (_, i) => ({ text: `row ${i + 1}`, lineNo: i + 1 })),
      100,
      undefined,
      5000,
    );
    expect(allGone.truncated).toBeNull();
    expect(allGone.output).toContain("gone from history: they can no longer be read");
  });

  test("redaction applies to the final text", () => {
    const r = render(lines(["token=hunter2!"]), 4000, (t) => t.replaceAll("hunter2!", "[secret]"));
    expect(r.output).toBe("token=[secret]");
  });

  test("token estimate: ~4 ASCII chars per token, one per CJK character", () => {
    expect(estimateTokens("abcdefgh")).toBe(2);
    expect(estimateTokens("日本語")).toBe(3);
  });
});
