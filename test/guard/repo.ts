/** A real git repository with uncommitted work, for the rules that guard it (git-discard-work). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ORIGINAL = "committed\n";
export const EDITED = "uncommitted work\n";

/** A git repository whose tracked file.txt has an uncommitted change. */
export function dirtyRepo(): string {
  return gitRepo(true);
}

/** A git repository with a committed file.txt, changed but not committed when `dirty`. */
export function gitRepo(dirty: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "guard-repo-"));
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", "-C", dir, ...args], {
      stdout: "ignore",
      stderr: "pipe",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  };
  git("init", "-q");
  writeFileSync(join(dir, "file.txt"), ORIGINAL);
  git("add", "file.txt");
  git("commit", "-qm", "init");
  if (dirty) writeFileSync(join(dir, "file.txt"), EDITED);
  return dir;
}
