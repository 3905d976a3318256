/**
 * term_exec `reduce` on real commands in a real shell: git status/log/grep in a scratch repository
 * and the benchmark's pytest/pip/npm look-alikes. Every fact stays; the header says what was dropped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "bench", "fixtures");
let mcp: McpClient;
let repo: string;

beforeAll(async () => {
  mcp = await startMcp({ transport: "in-process", config: { persistent: false, shell: "/bin/bash" } });
  repo = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "repo-"));
  const git = "git -c user.name=Ada -c user.email=ada@example.com";
  const setup = [
    "git init -q -b main .",
    "printf 'alpha\\nneedle one\\n' > a.txt",
    "printf 'needle two\\nneedle three\\nneedle four\\nneedle five\\n' > b.txt",
    `${git} add . && ${git} commit -qm 'first commit'`,
    `echo more >> a.txt && ${git} commit -qam 'second commit'`,
    "echo changed >> b.txt && echo new > c.txt",
  ].join(" && ");
  const r = await mcp.ok("term_exec", { command: `cd ${repo} && ${setup}` });
  expect(r.exit_code).toBe(0);
});
afterAll(async () => {
  await mcp.close();
});

interface Reduced {
  text: string;
  output: string;
  reduced?: string;
  truncated: { omitted_lines: number; from_line: number; to_line: number } | null;
}

async function reduced(command: string, maxTokens?: number): Promise<Reduced> {
  const r = await mcp.raw("term_exec", { command, reduce: true, timeout_ms: 60_000, max_tokens: maxTokens });
  const s = r.structuredContent as Omit<Reduced, "text">;
  return { text: (r.content[0] as { text: string }).text, ...s };
}

describe("term_exec reduce", () => {
  test("git status: the advice goes, branch and every file stay", async () => {
    const plain = await mcp.ok("term_exec", { command: "git status" });
    expect(plain.output).toContain('(use "git add <file>..."');
    const r = await reduced("git status");
    expect(r.output).not.toMatch(/^\s*\(use /m);
    for (const fact of ["On branch main", "modified:   b.txt", "c.txt"]) expect(r.output).toContain(fact);
    expect(r.text.split("\n")[0]).toMatch(/ · reduced \(git status\): dropped \d+ "\(use git …\)" advice lines\]$/);
    expect(r.output.length).toBeLessThan(plain.output.length);
  });

  test("git log: one line per commit with hash, date and subject; the author once", async () => {
    const r = await reduced("git --no-pager log");
    const lines = r.output.split("\n");
    expect(lines[0]).toBe("Author: Ada <ada@example.com> (every commit)");
    expect(lines[1]).toMatch(/^[0-9a-f]{40} .+ second commit$/);
    expect(lines[2]).toMatch(/^[0-9a-f]{40} .+ first commit$/);
  });

  test("grep -rn: matches grouped under their file, every line number kept", async () => {
    const r = await reduced("grep -rn needle a.txt b.txt");
    expect(r.output).toBe("a.txt\n2:needle one\nb.txt\n1:needle two\n2:needle three\n3:needle four\n4:needle five");
    expect(r.reduced).toContain("reduced (grep)");
  });

  test("a failing pytest run: passing lines gone; the failing test, exception, file:line and counts stay", async () => {
    const plain = await mcp.ok("term_exec", { command: `python3 ${FIXTURES}/fake_pytest.py`, reduce: false });
    const r = await reduced(`python3 ${FIXTURES}/fake_pytest.py`);
    expect(r.output).not.toContain("PASSED");
    const facts = [
      "tests/test_render.py::test_wrap_long_lines_23",
      "ZeroDivisionError: integer division or modulo by zero",
      "src/render.py:57",
      "1 failed, 466 passed",
    ];
    for (const fact of facts) expect(r.output).toContain(fact);
    expect(r.output.length * 5).toBeLessThan(plain.output.length);
  });

  test("pip and npm installs: what was installed, warnings, deprecations and counts stay", async () => {
    const pip = await reduced(`python3 ${FIXTURES}/fake_pip.py`);
    expect(pip.output).not.toMatch(/^Collecting /m);
    expect(pip.output).not.toContain("━━━━");
    expect(pip.output).toMatch(/Successfully installed certifi-2024\.8\.30 .*matplotlib-3\.9\.2/);
    expect(pip.output).toContain("WARNING: Running pip as the 'root' user");
    const npm = await reduced(`python3 ${FIXTURES}/fake_npm.py`);
    const facts = [
      "npm warn deprecated inflight@1.0.6",
      "npm warn deprecated eslint@8.57.1",
      "added 312 packages, and audited 313 packages",
      "found 0 vulnerabilities",
    ];
    for (const fact of facts) expect(npm.output).toContain(fact);
    expect(npm.reduced).toContain("deprecation explanations");
  });

  test("reduce first, then budget: a pytest -v run over the budget is reduced whole, nothing omitted", async () => {
    const r = await reduced(`python3 ${FIXTURES}/fake_pytest.py`);
    expect(r.truncated).toBeNull();
    expect(r.text.split("\n")[0]).not.toContain("omitted");
    // Both ends and the failing line in the middle (45%) survive: the budget never cut the raw run.
    for (const fact of ["collected 467 items", "test_wrap_long_lines_23 FAILED", "1 failed, 466 passed"])
      expect(r.output).toContain(fact);
  });

  test("left to the default, output the budget would cut is reduced instead, and the header says so", async () => {
    const command = `python3 ${FIXTURES}/fake_pytest.py`;
    const cut = await mcp.raw("term_exec", { command, reduce: false, max_tokens: 2000 });
    const cutData = cut.structuredContent as Omit<Reduced, "text">;
    expect(cutData.truncated).not.toBeNull();
    expect(cutData.reduced).toBeUndefined();
    const auto = await mcp.raw("term_exec", { command, max_tokens: 2000 });
    const autoData = auto.structuredContent as Omit<Reduced, "text">;
    expect(autoData.reduced).toMatch(/^reduced \(test run\): dropped \d+ .*, instead of cutting$/);
    expect(autoData.truncated).toBeNull();
    for (const fact of ["test_wrap_long_lines_23 FAILED", "ZeroDivisionError", "1 failed, 466 passed"])
      expect(autoData.output).toContain(fact);
    expect((auto.content[0] as { text: string }).text.split("\n")[0]).toContain("instead of cutting");
    // Output within the budget is left as it is.
    const small = await mcp.raw("term_exec", { command: "git status" });
    expect((small.structuredContent as Omit<Reduced, "text">).reduced).toBeUndefined();
  });

  test("a reduced output still over the budget is cut, and the omitted range reads back from history", async () => {
    const r = await reduced(`python3 ${FIXTURES}/fake_pytest.py`, 100);
    expect(r.reduced).toContain("reduced (test run)");
    expect(r.truncated).not.toBeNull();
    const back = await mcp.ok("term_read", {
      session: "main",
      mode: "history",
      from: r.truncated!.from_line,
      to: r.truncated!.to_line,
      max_tokens: 20_000,
    });
    // The omitted reduced lines are in that range (as the original, unreduced lines).
    const shown = new Set(r.output.split("\n"));
    const omittedFailure = ["ZeroDivisionError: integer division or modulo by zero", "src/render.py:57"].filter(
      (f) => ![...shown].some((l) => l.includes(f)),
    );
    expect(omittedFailure.length).toBeGreaterThan(0);
    for (const f of omittedFailure) expect(back.output).toContain(f);
  });

  test("python3 -m unittest (with and without -v) is reduced; output no reducer knows says so", async () => {
    const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "ut-"));
    const body = [
      "import unittest",
      "class T(unittest.TestCase):",
      "    def test_bad(self): self.assertEqual(1, 2)",
      "for i in range(30): setattr(T, f'test_ok_{i:02d}', lambda self: None)",
    ].join("\n");
    writeFileSync(join(dir, "test_sample.py"), `${body}\n`);
    const verbose = await reduced(`cd ${dir} && python3 -m unittest -v`);
    expect(verbose.reduced).toMatch(/^reduced \(unittest\): dropped 30 passing-test lines/);
    expect(verbose.output).not.toContain("... ok");
    for (const fact of ["FAIL: test_bad", "AssertionError: 1 != 2", "Ran 31 tests", "FAILED (failures=1)"])
      expect(verbose.output).toContain(fact);
    const quiet = await reduced("python3 -m unittest");
    expect(quiet.reduced).toContain("reduced (unittest)");
    expect(quiet.output).toContain("FAILED (failures=1)");
    const none = await reduced("echo plain words");
    expect(none.output).toBe("plain words");
    expect(none.reduced).toBe("not reduced: no reducer knows this command or output");
    expect(none.text.split("\n")[0]).toContain("not reduced");
  });
});
