/** The line-editor model the guard uses to know what term_send's bytes will submit (line-editor.ts). */
import { describe, expect, test } from "bun:test";
import { maySubmit, submittedLines } from "../../src/guard/line-editor.ts";

describe("line-editor model", () => {
  test("CR, LF and ^O each submit the line; bytes after the last one submit nothing", () => {
    expect(submittedLines("", 0, "ls\rpwd\nid\x0funame").submitted).toEqual(["ls", "pwd", "id"]);
  });

  test("Enter, ^J and ^O with a modifier (modifyOtherKeys, kitty) submit like the plain key", () => {
    for (const key of ["\x1b[27;2;13~", "\x1b[27;5;13~", "\x1b[27;5;10~", "\x1b[13;2u", "\x1b[27;5;15~"]) {
      expect(maySubmit(key)).toBe(true);
      expect(submittedLines("rm -rf /", 8, key).submitted).toEqual(["rm -rf /"]);
    }
    expect(maySubmit("\x1b[27;2;9~")).toBe(false);
  });

  test("text is inserted at the cursor; moves, kills and yank edit the line as readline does", () => {
    expect(submittedLines("--hard", 0, "git reset \r").submitted).toEqual(["git reset --hard"]);
    expect(submittedLines("", 0, "/\x01rm -rf \x05\r").submitted).toEqual(["rm -rf /"]);
    expect(submittedLines("rm -rf /", 8, "\x15\x19\r").submitted).toEqual(["rm -rf /"]);
    expect(submittedLines("echo rm -rf /", 13, "\x1b[H\x1b[3~\x1b[3~\x1b[3~\x1b[3~\x1b[3~\r").submitted).toEqual([
      "rm -rf /",
    ]);
    expect(submittedLines("rm -rf /tmp/x", 13, "\x17/\r").submitted).toEqual(["rm -rf /"]);
  });

  test("^C abandons the line; ^V makes the next byte literal; a bracketed paste inserts its newlines", () => {
    const cancelled = submittedLines("rm -rf /", 8, "\x03ls\r");
    expect(cancelled).toEqual({ submitted: ["ls"], cancelled: true, unseen: false });
    expect(submittedLines("", 0, "a\x16\rb\r").submitted).toEqual(["a\rb"]);
    expect(submittedLines("", 0, "\x1b[200~rm -rf \\\n/\x1b[201~\r").submitted).toEqual([
      "rm -rf \\\n/",
      "rm -rf \\\n/",
    ]);
  });

  test("history, search and completion keys before a submission make the line unseen", () => {
    for (const keys of ["\x1b[A", "\x1bOA", "\x10", "\x12rm", "\t", "\x1b."]) {
      expect(submittedLines("git reset", 9, `${keys}\r`).unseen).toBe(true);
    }
    // The same keys with no submission after them, or a plain line: nothing unseen is submitted.
    expect(submittedLines("", 0, "\x1b[A").unseen).toBe(false);
    expect(submittedLines("", 0, "ls\r\x1b[A").unseen).toBe(false);
    expect(submittedLines("", 0, "ls\x1b[D\x1b[C\r").unseen).toBe(false);
  });
});
