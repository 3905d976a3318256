import { describe, expect, test } from "bun:test";
import { isLateEcho, LATE_ECHO_HOLD_MS, LateEchoFilter, mayBecomeLateEcho } from "../../src/terminal/late-echo.ts";

const line = 'time.sleep(3); print("MARK")';

describe("late echo of typed-ahead input", () => {
  test("a prompt followed by exactly the typed line is a late echo; the line alone (cat) is not", () => {
    expect(isLateEcho(`>>> ${line}`, line)).toBe(true);
    expect(isLateEcho("user@host:~$ echo hi", "echo hi")).toBe(true);
    expect(isLateEcho(line, line)).toBe(false);
    expect(isLateEcho("MARK", line)).toBe(false);
    expect(isLateEcho("result: echo hi", "echo hi")).toBe(false);
  });

  test("a prompt with the start of the line may still become one; other text may not", () => {
    expect(mayBecomeLateEcho(">>> ", line)).toBe(true);
    expect(mayBecomeLateEcho(">>> time.sl", line)).toBe(true);
    expect(mayBecomeLateEcho(">>> print(1)", line)).toBe(false);
    expect(mayBecomeLateEcho("MARK", line)).toBe(false);
  });

  test("the filter blanks what precedes a late echo and holds a pending prompt only while output is fresh", () => {
    const f = new LateEchoFilter(line);
    expect(f.filter("\n>>> ", 0)).toEqual({ text: "", held: true });
    expect(f.filter("\n>>> ", LATE_ECHO_HOLD_MS)).toEqual({ text: "\n>>> ", held: false });
    expect(f.echoed).toBe(false);
    expect(f.filter(`Python 3\n>>> ${line}\n`, 0)).toEqual({ text: "", held: false });
    expect(f.echoed).toBe(true);
    expect(f.filter("MARK\n>>> ", 0)).toEqual({ text: "MARK\n>>> ", held: false });
  });
});
