import { describe, expect, test } from "bun:test";
import {
  commandLine,
  isShellFamily,
  parseMark,
  quotePosix,
  shellFamilyOf,
} from "../../src/terminal/shell-integration.ts";

describe("shell integration", () => {
  const nonce = "abc123";
  test("marks parse only with the session's nonce", () => {
    expect(parseMark("abc123;A", nonce)).toEqual({ kind: "prompt" });
    expect(parseMark("abc123;C", nonce)).toEqual({ kind: "start" });
    expect(parseMark("abc123;D;3;/tmp/a%3Bb%25c", nonce)).toEqual({ kind: "end", exitCode: 3, cwd: "/tmp/a;b%c" });
    expect(parseMark("abc123;D;0;/x;y", nonce)).toEqual({ kind: "end", exitCode: 0, cwd: "/x;y" });
    expect(parseMark("wrong;D;0;/", nonce)).toBeNull();
    expect(parseMark("D;0;/", nonce)).toBeNull();
    expect(parseMark("abc123;Z", nonce)).toBeNull();
  });

  test("a question about a command: two verdict words, then the command's text", () => {
    const words = { yes: "1234567890", no: "9876543210" };
    expect(parseMark("abc123;J;1234567890;9876543210;rm -rf /%3B echo a;b", nonce)).toEqual({
      kind: "judge",
      ...words,
      text: "rm -rf /; echo a;b",
    });
    // Empty or short words would be found in any line: such a question is not ours.
    expect(parseMark("abc123;J;;9876543210;ls", nonce)).toBeNull();
    expect(parseMark("abc123;J;12;9876543210;ls", nonce)).toBeNull();
  });

  test("shell families", () => {
    expect(shellFamilyOf("/bin/bash")).toBe("bash");
    expect(shellFamilyOf("-zsh")).toBe("zsh");
    expect(shellFamilyOf("/usr/bin/dash")).toBe("sh");
    expect(shellFamilyOf("python3")).toBeNull();
    // What the daemon's attach answer may name: every family of the lists, nothing else.
    for (const family of ["bash", "zsh", "fish", "sh", "cmd", "pwsh"]) expect(isShellFamily(family)).toBe(true);
    for (const other of ["dash", "csh", "", null, 3]) expect(isShellFamily(other)).toBe(false);
  });

  test("command lines: single lines as typed, multi-line folded, markers wrap in sh", () => {
    expect(commandLine("echo hi", "bash", "shell")).toBe("echo hi");
    expect(commandLine("echo a\necho 'b'", "bash", "shell")).toBe(`eval "$(printf %b 'echo a\\necho '\\''b'\\''')"`);
    expect(commandLine("echo hi", "sh", "marker")).toBe(`__ptyhub_c; command eval 'echo hi'; __ptyhub_d "$?"`);
    expect(quotePosix("it's")).toBe(`'it'\\''s'`);
  });

  test("a folded multi-line command runs as written", () => {
    const script = "x=1\nif [ $x = 1 ]; then echo 'one \\ two'; fi\nprintf '%s\\n' \"$x\"";
    const r = Bun.spawnSync(["bash", "-c", commandLine(script, "bash", "shell")]);
    expect(r.stdout.toString()).toBe("one \\ two\n1\n");
  });
});
