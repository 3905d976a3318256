/**
 * Where ptyhub keeps its files. Runtime files (shell-integration scripts, the daemon's socket) go
 * in a private directory: $XDG_RUNTIME_DIR/ptyhub, or a per-user directory under the system temp
 * dir. Both are created 0700 and checked to belong to us, so another user cannot plant files there.
 */
import { mkdirSync, statSync, chmodSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { join } from "node:path";
import { AppError } from "./errors.ts";

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

/** Creates `dir` (and parents) with mode 0700 and refuses one owned by someone else. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (process.platform !== "win32") {
    if (st.uid !== uid()) {
      throw new AppError(
        "INTERNAL",
        `directory ${dir} belongs to another user`,
        "Set XDG_RUNTIME_DIR to a directory you own.",
      );
    }
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  }
  return dir;
}

export function runtimeDir(): string {
  const base = process.env.XDG_RUNTIME_DIR;
  if (base) return ensurePrivateDir(join(base, "ptyhub"));
  return ensurePrivateDir(join(tmpdir(), `ptyhub-${uid()}`));
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
