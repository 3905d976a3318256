/**
 * The command line and environment block CreateProcessW gets for a pseudo console session
 * (src/backend/local/conpty/command-line.ts): pure functions, checked here on any OS against the
 * splitting rules of CommandLineToArgvW.
 */
import { describe, expect, test } from "bun:test";
import { environmentBlock, quoteWindowsArg, windowsCommandLine } from "../../src/backend/local/conpty/command-line.ts";

/** CommandLineToArgvW's rules for the arguments after the program name. */
function splitWindowsArgs(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === " " || line[i] === "\t") i++;
    if (i >= line.length) break;
    let arg = "";
    let quoted = false;
    for (; i < line.length; i++) {
      const ch = line[i]!;
      if (!quoted && (ch === " " || ch === "\t")) break;
      if (ch === "\\") {
        let n = 0;
        while (line[i] === "\\") {
          n++;
          i++;
        }
        if (line[i] === '"') {
          arg += "\\".repeat(Math.floor(n / 2));
          if (n % 2 === 1) arg += '"';
          else quoted = !quoted;
        } else {
          arg += "\\".repeat(n);
          i--;
        }
        continue;
      }
      if (ch === '"') {
        quoted = !quoted;
        continue;
      }
      arg += ch;
    }
    out.push(arg);
  }
  return out;
}

describe("windowsCommandLine", () => {
  const cases = [
    ["cmd.exe"],
    ["cmd.exe", "/c", "echo hi & exit 5"],
    ["prog", ""],
    ["prog", 'say "hi"'],
    ["prog", "C:\\path with space\\"],
    ["prog", "trailing\\\\"],
    ["prog", 'a\\"b', "tab\there"],
    ["prog", "ünïcödé", "%PATH%"],
  ];
  for (const argv of cases) {
    test(`round-trips ${JSON.stringify(argv)}`, () => {
      expect(splitWindowsArgs(windowsCommandLine(argv))).toEqual(argv);
    });
  }

  test("plain words stay unquoted", () => {
    expect(quoteWindowsArg("cmd.exe")).toBe("cmd.exe");
    expect(quoteWindowsArg("")).toBe('""');
  });
});

describe("environmentBlock", () => {
  test("sorted case-insensitively, one entry per name whatever its case, double NUL at the end", () => {
    const block = environmentBlock({ b: "2", Path: "C:\\x", A: "1", PATH: "C:\\y", "bad=name": "x" });
    const text = String.fromCharCode(...block);
    expect(text).toBe("A=1\0b=2\0PATH=C:\\y\0\0");
  });
});
