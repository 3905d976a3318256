/** The oracle's generator: replayable from its seed, within the kinds asked, and exact to compare. */
import { describe, expect, test } from "bun:test";
import { ALL_KINDS, CaseGenerator, type FragmentKind, parseKinds, renderOracle } from "./generate.ts";

const all = new Set(ALL_KINDS);
const take = (gen: CaseGenerator, n: number) => Array.from({ length: n }, () => gen.next());

describe("CaseGenerator", () => {
  test("the same seed gives the same lines; another seed other lines", () => {
    const a = take(new CaseGenerator(42, "posix", all, "t"), 200);
    const b = take(new CaseGenerator(42, "posix", all, "t"), 200);
    const c = take(new CaseGenerator(43, "posix", all, "t"), 200);
    expect(b).toEqual(a);
    expect(c.map((x) => x.line)).not.toEqual(a.map((x) => x.line));
  });

  test("kinds turned off never appear; the lines hold no CR, tab or escape", () => {
    const off: FragmentKind[] = ["background", "no-newline", "emoji"];
    const enabled = new Set(ALL_KINDS.filter((k) => !off.includes(k)));
    for (const dialect of ["posix", "fish"] as const) {
      for (const c of take(new CaseGenerator(7, dialect, enabled, "t"), 500)) {
        for (const k of off) expect(c.kinds).not.toContain(k);
        expect(c.line).not.toMatch(/[\r\t\x1b]/);
        expect(c.line).not.toMatch(/🎉|👍|🙂|🚀/);
        expect(c.line).not.toContain("& wait");
      }
    }
  });

  test("every kind comes up, in both dialects; fish lines use no POSIX subshell or exit", () => {
    for (const dialect of ["posix", "fish"] as const) {
      const seen = new Set(take(new CaseGenerator(9, dialect, all, "t"), 500).flatMap((c) => c.kinds));
      expect([...seen].sort()).toEqual([...ALL_KINDS].sort());
    }
    for (const c of take(new CaseGenerator(9, "fish", all, "t"), 500)) expect(c.line).not.toMatch(/(^|; )\( |\(exit /);
  });

  test("minMs adds up the line's sleeps", () => {
    for (const c of take(new CaseGenerator(11, "posix", all, "t"), 300)) {
      const sleeps = [...c.line.matchAll(/sleep (\d+\.\d+)/g)].reduce((ms, m) => ms + Number(m[1]) * 1000, 0);
      expect(Math.abs(c.minMs - sleeps)).toBeLessThan(1);
    }
  });
});

test("renderOracle: CRLF to LF, trailing blanks and blank lines trimmed, inner blank lines kept", () => {
  expect(renderOracle("a  \r\n\r\nb\t\n\n\n")).toBe("a\n\nb");
  expect(renderOracle("\nx")).toBe("\nx");
  expect(renderOracle("")).toBe("");
});

test("parseKinds: names, `all`, unknown names ignored", () => {
  expect(parseKinds("emoji, background,nope")).toEqual(["emoji", "background"]);
  expect(parseKinds("all")).toEqual([...ALL_KINDS]);
  expect(parseKinds(undefined)).toEqual([]);
});
