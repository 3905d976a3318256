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

/** A repository's filter drivers: `filter.NAME.clean`, `.smudge`, `.process` (NAME may hold dots). */
const FILTER_COMMAND = /^filter\.([\s\S]+)\.(clean|smudge|process)$/;

/**
 * Settings that keep `git status` from running programs the repository names: its fsmonitor hook
 * and its filter drivers (a clean filter runs on every file whose stat changed). The guard runs
 * git here, outside any sandbox the session has: a sandboxed session that wrote
 * `core.fsmonitor = touch ~/x` into its repository, then typed `git reset --hard`, had the hook
 * run unconfined (a write outside its sandbox), refused or not. Without the filters a filtered
 * file may read as changed: the guard then asks, which is the safe side.
 */
function programFreeStatusArgs(dir: string): string[] {
  // Names only, each ended by NUL: a driver's name may hold spaces or newlines.
  const names = git(dir, ["config", "--null", "--name-only", "--get-regexp", "^filter\\..*\\.(clean|smudge|process)$"]);
  const overrides = (names ?? "")
    .split("\0")
    .map((line) => FILTER_COMMAND.exec(line))
    .flatMap((m) => (m ? ["-c", `filter.${m[1]}.${m[2]}=`] : []));
  return ["-c", "core.fsmonitor=false", ...overrides, "status", "--porcelain", "--ignore-submodules=all"];
}

/** `git status --porcelain`: "" for a clean work tree (untracked files count as work). */
export function gitStatus(dir: string): string | null {
  return git(dir, programFreeStatusArgs(dir));
}

export function gitBranch(dir: string): string | null {
  const out = git(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  return out === null ? null : out.trim() || null;
}

/** Is `dir` a repository's work tree (a `.git` directory or file in it)? */
export function isRepository(dir: string): boolean {
  return existsSync(join(dir, ".git"));
}
