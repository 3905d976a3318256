import { describe, expect, test } from "bun:test";
import { stripEcho } from "../../src/terminal/echo.ts";

describe("echo stripping", () => {
  test("the echo and its line break are removed", () => {
    expect(stripEcho("print(1)\n1\n>>> ", "print(1)", true)).toEqual({ status: "stripped", rest: "1\n>>> " });
  });
  test("a partial echo is pending, so nothing can match it yet", () => {
    expect(stripEcho("sleep 1; ec", "sleep 1; echo DONE_Y", true)).toEqual({ status: "pending" });
    expect(stripEcho("sleep 1; echo DONE_Y", "sleep 1; echo DONE_Y", true)).toEqual({ status: "pending" });
    expect(stripEcho("", "x", true)).toEqual({ status: "pending" });
  });
  test("soft breaks inside a long echoed line are tolerated", () => {
    expect(stripEcho("abcdef\nghij\nout", "abcdefghij", true)).toEqual({ status: "stripped", rest: "out" });
  });
  test("continuation prompts of multi-line input are skipped", () => {
    expect(stripEcho("for i in 1 2:\n...     print(i)\n1", "for i in 1 2:\n    print(i)", false)).toEqual({
      status: "stripped",
      rest: "\n1",
    });
  });
  test("no echo (echo off, or other output first) is reported as absent", () => {
    expect(stripEcho("hello world", "secret", true)).toEqual({ status: "absent", rest: "hello world" });
  });
});
