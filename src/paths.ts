/**
 * Where ptyhub keeps its files. Runtime files (shell-integration scripts, the daemon's socket) go
 * in a private directory: $XDG_RUNTIME_DIR/ptyhub, or a per-user directory under the system temp
 * dir. Both are created 0700 and checked to belong to us, so another user cannot plant files there.
 */
import { chmodSync, lstatSync, mkdirSync, statSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { dirname, join } from "node:path";
import { AppError } from "./api/errors.ts";

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

/** What to do when a private directory is not ours: the variable that moves it, by default. */
const RUNTIME_DIR_HINT =
  "Set XDG_RUNTIME_DIR to a directory only you can write (ptyhub uses $XDG_RUNTIME_DIR/ptyhub), or remove it.";

/** Creates `dir` (and parents) with mode 0700 and refuses one owned by someone else. */
export function ensurePrivateDir(dir: string, hint = RUNTIME_DIR_HINT): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (process.platform !== "win32") {
    if (st.uid !== uid()) {
      throw new AppError("INTERNAL", `directory ${dir} belongs to another user`, hint);
    }
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  }
  return dir;
}

/**
 * Like ensurePrivateDir, for a directory whose files ptyhub later hands to shells to run (hooks):
 * checked with lstat every time, so a symbolic link (planted, or re-pointed later) is refused,
 * not followed, and so are a directory of another user and one others may write. A parent that
 * others may write must be sticky (/tmp): else someone could rename ours away and put theirs in.
 */
export function ensureOwnedDir(dir: string, hint = RUNTIME_DIR_HINT): string {
  if (process.platform === "win32") return ensurePrivateDir(dir, hint);
  const parent = dirname(dir);
  if (parent !== dir) {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    const p = statSync(parent);
    const othersWrite = (p.mode & 0o022) !== 0;
    if (othersWrite && (p.mode & 0o1000) === 0 && p.uid !== uid())
      throw new AppError("INTERNAL", `${parent} may be written by others and is not sticky: ${dir} is unsafe`, hint);
  }
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory())
    throw new AppError("INTERNAL", `${dir} is ${st.isSymbolicLink() ? "a symbolic link" : "not a directory"}`, hint);
  if (st.uid !== uid()) throw new AppError("INTERNAL", `directory ${dir} belongs to another user`, hint);
  // Ours and a real directory: safe to tighten (no one else can have put anything in it meanwhile
  // that we do not check per file, see terminal/owned-file.ts).
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

export function runtimeDir(): string {
  const base = process.env.XDG_RUNTIME_DIR;
  if (base) return ensureOwnedDir(join(base, "ptyhub"));
  return ensureOwnedDir(join(tmpdir(), `ptyhub-${uid()}`));
}

export function stateDir(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return ensurePrivateDir(join(base, "ptyhub"));
}

export function configDir(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "ptyhub");
}

/** Expands a leading `~` to the home directory. */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}
