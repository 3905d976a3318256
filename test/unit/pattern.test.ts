import { describe, expect, test } from "bun:test";
import { CallerPattern } from "../../src/terminal/pattern.ts";
import { MAX_PATTERN_CHARS } from "../../src/api/fields.ts";
import { AppError } from "../../src/api/errors.ts";

function compileError(source: string): AppError {
  try {
    CallerPattern.compile(source);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`${source} compiled`);
}

describe("caller patterns (RE2 semantics)", () => {
  test("match like the JavaScript patterns agents write, line anchors included", () => {
    expect(CallerPattern.compile("got:.*").exec("x\ngot: 42\ny")?.[0]).toBe("got: 42");
    expect(CallerPattern.compile("^>>> $").test("Python 3\n>>> ")).toBe(true);
    expect(CallerPattern.compile("\\$ $").test("user@h:~$ \nnext")).toBe(true);
    expect(CallerPattern.compile("DONE-\\d+").exec("DONE-x DONE-17")?.[0]).toBe("DONE-17");
    expect(CallerPattern.compile("(?i)error").test("ERROR: disk")).toBe(true);
    expect(CallerPattern.compile("🙂+").exec("a🙂🙂b")?.[0]).toBe("🙂🙂");
    expect(CallerPattern.compile("never").exec("nothing here")).toBeNull();
  });

  test("a catastrophic-backtracking pattern runs in linear time on a long output", () => {
    // RegExp needs ~2^40 steps per line here; RE2 needs one pass. Bound is generous for a loaded machine.
    const text = `${"a".repeat(40)}!\n`.repeat(25_000);
    const t0 = performance.now();
    expect(CallerPattern.compile("(a+)+$").test(text)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  test("unsupported and invalid syntax is INVALID_REGEX with a hint naming the syntax", () => {
    for (const source of ["(?=a)", "(?<!x)y", "(a)\\1", "a{1001}", "([", "", "x".repeat(MAX_PATTERN_CHARS + 1)]) {
      const err = compileError(source);
      expect(err.code).toBe("INVALID_REGEX");
      expect(err.hint.length).toBeGreaterThan(0);
    }
    expect(compileError("(?=a)").hint).toContain("RE2");
  });

  test("the error quotes a long invalid pattern only in part", () => {
    const err = compileError(`(${"y".repeat(900)}`);
    expect(err.message.length).toBeLessThan(400);
    expect(err.message).toContain("more characters");
  });
});
