/**
 * What git says about a local work tree, for the rules that guard uncommitted work and shared
 * branches. Each answer is null when it cannot be known (git missing, not a repository, too slow).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";

/** git status on a huge tree can be slow; past this the answer counts as unknown. */
const GIT_TIMEOUT_MS = 3000;

function git(dir: string, args: string[]): string | null {
  try {
    const r = Bun.spawnSync(["git", "-C", dir, ...args], {
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
      timeout: GIT_TIMEOUT_MS,
    });
    return r.exitCode === 0 ? r.stdout.toString() : null;
  } catch {
    return null;
  }
}

/** `git status --porcelain`: "" for a clean work tree (untracked files count as work). */
export function gitStatus(dir: string): string | null {
  return git(dir, ["status", "--porcelain"]);
}

export function gitBranch(dir: string): string | null {
  const out = git(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  return out === null ? null : out.trim() || null;
}

/** Is `dir` a repository's work tree (a `.git` directory or file in it)? */
export function isRepository(dir: string): boolean {
  return existsSync(join(dir, ".git"));
}
