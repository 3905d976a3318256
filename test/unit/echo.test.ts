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

describe("echo of multi-line input in REPLs (issue 36: the REPL oracle)", () => {
  test("python's primary prompt before each pasted statement, and a bare `...` on an empty line", () => {
    const sent = "def f(a):\n    return a+1\n\nf(3)";
    const shown = "def f(a):\n...     return a+1\n...\n>>> f(3)\n4\n>>>";
    expect(stripEcho(shown, sent, true)).toEqual({ status: "stripped", rest: "4\n>>>" });
    expect(stripEcho("x = 1\n>>> x\n1\n>>>", "x = 1\nx", true)).toEqual({ status: "stripped", rest: "1\n>>>" });
  });
  test("a line that looks like a prompt is matched as typed before it is taken for one", () => {
    const sent = "SELECT a,\n  b\nFROM t\nWHERE a > 1;";
    expect(stripEcho(`${sent}\nsqlite>`, sent, true)).toEqual({ status: "stripped", rest: "sqlite>" });
    const psql = "SELECT a,\noracle-#   b\noracle-# FROM t\noracle-# WHERE a > 1;\n a | b\n";
    expect(stripEcho(psql, sent, true)).toEqual({ status: "stripped", rest: " a | b\n" });
    expect(stripEcho("SELECT 1,\n   ...>   2;\n1|2", "SELECT 1,\n  2;", true)).toEqual({
      status: "stripped",
      rest: "1|2",
    });
  });
  test("an echo cut short after a line break is still pending", () => {
    expect(stripEcho("SELECT a,\n   ...>   b", "SELECT a,\n  b\nFROM t;", true)).toEqual({ status: "pending" });
  });
});

test("a block closed by an empty line: Enter's line with its bare continuation prompt is echo too", () => {
  const sent = "for i in range(2):\n    print(i)\n";
  const shown = "for i in range(2):\n...     print(i)\n...\n0\n1\n>>>";
  expect(stripEcho(shown, sent, true)).toEqual({ status: "stripped", rest: "0\n1\n>>>" });
  expect(stripEcho("for i in range(2):\n...     print(i)\n...", sent, true)).toEqual({ status: "pending" });
});

test("irb redraws a pasted block behind its own prompts, the first line too", () => {
  const sent = "def f(a)\n  a+1\nend";
  const shown = "irb(main):002:1* def f(a)\nirb(main):003:1*   a+1\nirb(main):004:0> end\n=> :f\nirb(main):005:0>";
  expect(stripEcho(shown, sent, true)).toEqual({ status: "stripped", rest: "=> :f\nirb(main):005:0>" });
  // Output that merely starts like a prompt is not taken for an echo behind one.
  expect(stripEcho("x> hello\n", "ls", true)).toEqual({ status: "absent", rest: "x> hello\n" });
});
