/**
 * The guard's `git status` (src/guard/git.ts) runs on this machine, outside any sandbox the
 * session has: it must not run the programs a repository's config names. A session could write
 * them there (`git config core.fsmonitor …`, a filter driver) and have the guard run them
 * unconfined just by typing a line the guard looks at. Real git, real repositories.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitStatus } from "../../src/guard/git.ts";
import { gitRepo } from "./repo.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A repository whose config names `touch MARK` as its fsmonitor hook and as three filter drivers. */
function trappedRepo(dirty: boolean): { dir: string; mark: string } {
  const dir = gitRepo(dirty);
  const outside = mkdtempSync(join(tmpdir(), "guard-git-outside-"));
  dirs.push(dir, outside);
  const mark = join(outside, "ran");
  const config = (key: string, value: string) =>
    expect(Bun.spawnSync(["git", "-C", dir, "config", key, value]).exitCode).toBe(0);
  config("core.fsmonitor", `touch ${mark}; false`);
  for (const name of ["x", "with space"]) {
    config(`filter.${name}.clean`, `touch ${mark}; cat`);
    config(`filter.${name}.smudge`, `touch ${mark}; cat`);
  }
  config("filter.p.process", `touch ${mark}`);
  writeFileSync(join(dir, ".gitattributes"), "file.txt filter=x\n* filter=p\n");
  // A later mtime with the same size: git must read the file (through its clean filter) to know.
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(dir, "file.txt"), later, later);
  return { dir, mark };
}

test("the git a trapped repository runs on its own does run the hook (the trap is real)", () => {
  const { dir, mark } = trappedRepo(false);
  Bun.spawnSync(["git", "-C", dir, "status", "--porcelain"], { stdout: "ignore", stderr: "ignore" });
  expect(existsSync(mark)).toBe(true);
});

test("gitStatus runs neither the fsmonitor hook nor a filter driver, and still sees the work", () => {
  const dirty = trappedRepo(true);
  const status = gitStatus(dirty.dir);
  expect(status).toContain("file.txt");
  expect(existsSync(dirty.mark)).toBe(false);
  const clean = trappedRepo(false);
  // Only the .gitattributes written above is new there: file.txt reads as unchanged.
  expect(gitStatus(clean.dir)).toBe("?? .gitattributes\n");
  expect(existsSync(clean.mark)).toBe(false);
});
