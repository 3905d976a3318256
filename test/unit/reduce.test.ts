/** Reducers on recorded output of the tools they are for: every fact kept, the noise gone. */
import { describe, expect, test } from "bun:test";
import { reduceOrSay, reduceOutput } from "../../src/reduce/reducers.ts";
import { reduceItems } from "../../src/reduce/items.ts";

describe("reducers", () => {
  test("jest: passing lines dropped, the failure and the counts kept", () => {
    const out = [
      "PASS src/a.test.ts",
      "FAIL src/b.test.ts",
      "  ● math › adds",
      "",
      "    expect(received).toBe(expected)",
      "      at Object.<anonymous> (src/b.test.ts:12:5)",
      "",
      "  math",
      "    ✓ subtracts (3 ms)",
      "    ✕ adds (5 ms)",
      "",
      "Tests:       1 failed, 1 passed, 2 total",
    ].join("\n");
    const r = reduceOutput("npx jest", out)!;
    expect(r.note).toBe("reduced (test run): dropped 2 passing-test lines");
    expect(r.text).not.toContain("✓ subtracts");
    const facts = [
      "FAIL src/b.test.ts",
      "● math › adds",
      "src/b.test.ts:12:5",
      "✕ adds",
      "Tests:       1 failed, 1 passed",
    ];
    for (const fact of facts) expect(r.text).toContain(fact);
  });

  test("cargo test and go test: ok lines dropped, failures kept", () => {
    const cargo = [
      "running 3 tests",
      "test a::one ... ok",
      "test a::two ... FAILED",
      "test a::three ... ok",
      "",
      "failures:",
      "    a::two",
      "",
      "test result: FAILED. 2 passed; 1 failed; 0 ignored",
    ].join("\n");
    const c = reduceOutput("cargo test", cargo)!;
    expect(c.text).not.toContain("a::one ... ok");
    expect(c.text).toContain("test a::two ... FAILED");
    expect(c.text).toContain("test result: FAILED. 2 passed; 1 failed");
    const failing = "    b_test.go:9: want 2, got 3\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s";
    const go = `=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n${failing}`;
    const g = reduceOutput("go test -v ./...", go)!;
    expect(g.text).toBe(failing);
  });

  test("compiler: cargo progress dropped, diagnostics with their snippets kept, repeats counted", () => {
    const out = [
      "   Compiling libc v0.2.155",
      "   Compiling app v0.1.0 (/src/app)",
      "error[E0425]: cannot find value `x` in this scope",
      " --> src/main.rs:3:13",
      "  |",
      '3 |     println!("{}", x);',
      "  |                    ^ not found in this scope",
      "",
      'error: could not compile `app` (bin "app") due to 1 previous error',
    ].join("\n");
    const r = reduceOutput("cargo build", out)!;
    expect(r.note).toBe("reduced (build): dropped 2 progress lines");
    expect(r.text.startsWith("error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:3:13")).toBe(true);
    expect(r.text).toContain("error: could not compile `app`");
    const gcc = [
      "In file included from a.c:1:",
      "x.h:2:1: warning: unused",
      "In file included from b.c:1:",
      "x.h:2:1: warning: unused",
      "make: *** [all] Error 1",
    ].join("\n");
    const g = reduceOutput("make", gcc)!;
    expect(g.text).toContain("x.h:2:1: warning: unused (×2)");
    expect(g.text).toContain("make: *** [all] Error 1");
  });

  test("git diff: header lines folded into one per file, hunks whole", () => {
    const headers = ["diff --git a/f.txt b/f.txt", "index 1234567..89abcde 100644", "--- a/f.txt", "+++ b/f.txt"];
    const out = [...headers, "@@ -1 +1 @@", "-old", "+new"].join("\n");
    expect(reduceOutput("git diff", out)!.text).toBe("--- f.txt\n@@ -1 +1 @@\n-old\n+new");
  });

  test("nothing to drop, or an unknown command: no reduction", () => {
    expect(reduceOutput("ls -la", "total 0\n")).toBeNull();
    expect(reduceOutput("git status", "On branch main\nnothing to commit, working tree clean")).toBeNull();
    expect(reduceOutput("grep x f", "just one line without a path")).toBeNull();
  });

  test("no reducer, or nothing to drop: the note says which", () => {
    expect(reduceOrSay("ls -la", "total 0")).toEqual({
      text: null,
      note: "not reduced: no reducer knows this command or output",
    });
    expect(reduceOrSay("git status", "On branch main").note).toBe("not reduced (git status): nothing to drop");
  });

  test("reduced lines keep the history line numbers of the lines they came from", () => {
    const raw = [
      "collected 4 items",
      "t.py::a PASSED",
      "t.py::b PASSED",
      "t.py::c FAILED",
      "t.py::d PASSED",
      "",
      "E   boom",
      "==== 1 failed, 3 passed in 0.1s ====",
    ];
    const items = raw.map((text, i) => ({ text, lineNo: 101 + i }));
    const r = reduceItems("pytest -v", items);
    expect(r.note).toBe("reduced (test run): dropped 3 passing-test lines");
    expect(r.items).toEqual([
      { text: "collected 4 items", lineNo: 101 },
      { text: "t.py::c FAILED", lineNo: 104 },
      { text: "", lineNo: 104 },
      { text: "E   boom", lineNo: 107 },
      { text: "==== 1 failed, 3 passed in 0.1s ====", lineNo: 108 },
    ]);
    // Rewritten lines (grep's path grouping) take their source's number, never going back.
    const grep = reduceItems(
      "grep -rn x .",
      ["a.txt:1:x1", "a.txt:5:x5", "b.txt:2:x2"].map((text, i) => ({ text, lineNo: 7 + i })),
    );
    expect(grep.items.map((l) => ("gap" in l ? -1 : l.lineNo))).toEqual([7, 7, 8, 9, 9]);
  });

  test("lines lost from history: not reduced, and the note says why", () => {
    const r = reduceItems("pytest", [
      { gap: true, fromLine: 1, toLine: 9, chars: 900 },
      { text: "x PASSED", lineNo: 10 },
    ]);
    expect(r.note).toBe("not reduced: part of the output is no longer in history");
    expect(r.items).toHaveLength(2);
  });
});
