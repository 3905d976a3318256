/**
 * `ptyhub guard check` as a user runs it: the real CLI in a child process, lines as arguments or
 * on stdin, a real dirty git repository as --cwd.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dirtyRepo } from "./repo.ts";

const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");

function check(
  args: string[],
  stdin = "",
  env: Record<string, string> = {},
): { code: number; out: string; err: string } {
  const r = Bun.spawnSync([process.execPath, CLI, "guard", "check", ...args], {
    env: { ...process.env, ...env },
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** An XDG_CONFIG_HOME whose ptyhub/config.json holds `text`. */
function configHome(text: string): string {
  const dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "guard-config-"));
  mkdirSync(join(dir, "ptyhub"));
  writeFileSync(join(dir, "ptyhub", "config.json"), text);
  return dir;
}

describe("ptyhub guard check", () => {
  test("an invalid configuration exits 2 with the reason, not 1 (which means 'would be stopped')", () => {
    const r = check(["rm -rf /"], "", { XDG_CONFIG_HOME: configHome(`{"guard": {"enabld": false}}`) });
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(`ptyhub guard check: ptyhub's configuration is invalid:`);
    expect(r.err).toContain(`unknown key "enabld" in "guard" — did you mean "enabled"?`);
  });

  test("a custom rule reusing a built-in rule's id is a configuration error naming it (exit 2)", () => {
    const rules = [{ id: "rm-recursive-root", pattern: "^ls", reason: "mine" }];
    const r = check(["ls"], "", { XDG_CONFIG_HOME: configHome(JSON.stringify({ guard: { rules } })) });
    expect(r.code).toBe(2);
    expect(r.err).toContain(`"rm-recursive-root" is a built-in rule's id`);
  });

  test("says which lines would be stopped, by which rule and why; exit 1 when any would", () => {
    const r = check(["rm -rf /", "ls -la"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("stopped  rm -rf /\n  rm-recursive-root: rm -r deletes the root directory /");
    expect(r.out).toContain("passes   ls -la");
  });

  test("--json: one object per line; exit 0 when none would be stopped", () => {
    const r = check(["--json", "echo hi", "git status"]);
    expect(r.code).toBe(0);
    expect(
      r.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { line: "echo hi", stopped: false, rules: [] },
      { line: "git status", stopped: false, rules: [] },
    ]);
  });

  test("--cwd: relative paths and git checks are judged there; lines come from stdin with -", () => {
    const repo = dirtyRepo();
    const r = check(["--json", "--cwd", repo, "-"], "git reset --hard\n\ncd / && rm -rf *\ngit stash\n");
    const rows = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.line, x.stopped, x.rules.map((y: { id: string }) => y.id)])).toEqual([
      ["git reset --hard", true, ["git-discard-work"]],
      ["cd / && rm -rf *", true, ["rm-recursive-root"]],
      ["git stash", false, []],
    ]);
    expect(rows[0].rules[0].reason).toContain(`1 changed or untracked path in ${repo}`);
    expect(r.code).toBe(1);
  });

  test("usage errors exit 2 with the reason on stderr; --help prints usage and exits 0", () => {
    const bad = check(["--bogus", "ls"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("unknown option '--bogus'");
    expect(bad.out).toBe("");
    const elsewhere = check(["--cwd", "/nonexistent/dir", "rm -rf ../.."]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err).toContain("/nonexistent/dir is not a directory here; judged as if it were");
    expect(elsewhere.out).toContain("rm -r deletes the root directory /");
    const help = check(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("usage: ptyhub guard check");
  });
});
