/**
 * Files ptyhub hands to shells to run (integration hooks): written and checked so that what a
 * shell sources is exactly ours. The directory is checked first (paths.ts ensureOwnedDir: ours,
 * 0700, not a link); each file is then opened without following a link (O_NOFOLLOW) and checked
 * through its descriptor (a regular file of ours, no group or other bits, the expected text), every
 * time a session starts: a file someone changed or replaced with a link is removed and written
 * anew with O_EXCL, which never follows or reuses what is there.
 */
import { closeSync, constants as fsc, fstatSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";

function uid(): number {
  return typeof process.getuid === "function" ? process.getuid() : 0;
}

/** Whether `path` is a regular file of ours, private, holding exactly `text` (no link followed). */
function holds(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return false; // Missing, or a symbolic link (ELOOP): written anew.
  }
  try {
    const st = fstatSync(fd);
    const want = Buffer.from(text);
    // Windows keeps owners and access in ACLs (the runtime dir is in the user's profile): its stat
    // has no uid and mode bits to check, and a file rewritten every time could be one a shell reads.
    const ours = process.platform === "win32" || (st.uid === uid() && (st.mode & 0o077) === 0);
    if (!st.isFile() || !ours || st.size !== want.length) return false;
    const got = Buffer.alloc(want.length);
    let at = 0;
    while (at < got.length) {
      const n = readSync(fd, got, at, got.length - at, at);
      if (n <= 0) return false;
      at += n;
    }
    return got.equals(want);
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` to a new private file at `path` (O_EXCL | O_NOFOLLOW): never through a link. */
export function writeNewPrivateFile(path: string, text: string): void {
  const fd = openSync(path, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
  try {
    const bytes = Buffer.from(text);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    closeSync(fd);
  }
}

/** Makes `path` a private regular file of ours holding `text`, replacing whatever else is there. */
export function ensureOwnedFile(path: string, text: string): void {
  if (holds(path, text)) return;
  try {
    unlinkSync(path); // Removes a link itself, never its target.
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  writeNewPrivateFile(path, text);
}
