/**
 * A sandboxed session's private temp dir: made for it (0700) under the system temp dir, marked
 * by the launcher with the pid that becomes the session's program, and removed by a later
 * sandboxed open once that process is gone (nothing runs after a session ends to remove it then).
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pidAlive } from "../../../util/process-tree.ts";

const PREFIX = "ptyhub-sandbox-";
/** Holds the pid of the confined program (the launcher's own pid: it execs in place). */
const OWNER_FILE = ".ptyhub-owner";

export function makePrivateTmp(): string {
  pruneOrphanTmps();
  // realpath: Landlock and sandbox-exec judge resolved paths (macOS's /var is /private/var).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), PREFIX)));
  chmodSync(dir, 0o700);
  return dir;
}

/** Called by the launcher when `dir` is its private temp dir: it will become `pid`'s. */
export function markOwner(dir: string, pid: number): void {
  if (!basename(dir).startsWith(PREFIX)) return;
  try {
    writeFileSync(join(dir, OWNER_FILE), String(pid), { mode: 0o600 });
  } catch {
    // Not fatal: the directory is then simply not pruned.
  }
}

/** Removes private temp dirs whose program has exited. */
export function pruneOrphanTmps(root = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(PREFIX));
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const pid = Number(readFileSync(join(root, name, OWNER_FILE), "utf8"));
      if (pid > 0 && !pidAlive(pid)) {
        rmSync(join(root, name), { recursive: true, force: true });
        removed++;
      }
    } catch {
      // No owner file (yet), or not ours: leave it.
    }
  }
  return removed;
}
