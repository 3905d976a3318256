/**
 * Reading and writing client config files safely: symlinks are followed (dotfile managers link
 * these files), the original is backed up before it is replaced, the new text is written to a
 * temporary file and renamed into place, and a file that changed since it was read is not
 * overwritten (Claude Code rewrites ~/.claude.json often).
 */
import { chmod, copyFile, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { constants } from "node:fs";
import { dirname } from "node:path";
import { ConfigEditError } from "./config-edit.ts";

export interface ConfigSnapshot {
  /** The file actually read and written (symlinks resolved). */
  realPath: string;
  /** null when the file does not exist yet. */
  text: string | null;
  /** Permission bits of the existing file, kept on the new one and its backup. */
  mode: number | undefined;
}

/** Attempts at a unique backup name when several backups land in the same millisecond. */
const MAX_BACKUP_SUFFIX = 100;
const PERMISSION_BITS = 0o7777;

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === "ENOENT";
}

export async function readConfig(path: string): Promise<ConfigSnapshot> {
  let realPath: string;
  try {
    realPath = await realpath(path);
  } catch (err) {
    if (!isMissing(err)) throw err;
    const link = await lstat(path).catch(() => undefined);
    if (link?.isSymbolicLink()) throw new ConfigEditError("it is a symbolic link to a file that does not exist");
    return { realPath: path, text: null, mode: undefined };
  }
  const info = await stat(realPath);
  if (!info.isFile()) throw new ConfigEditError("it is not a regular file");
  const bytes = await readFile(realPath);
  let text: string;
  try {
    // ignoreBOM keeps a leading byte-order mark in the text: the edit keeps it, and the check that the
    // file did not change meanwhile compares against the file as it is (with its mark).
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ConfigEditError("it is not UTF-8 text");
  }
  return { realPath, text, mode: info.mode & PERMISSION_BITS };
}

function backupStamp(now: Date): string {
  return now.toISOString().replace(/[-:.]/g, "");
}

/** Copies the current file aside; returns the backup's path. */
async function backup(snapshot: ConfigSnapshot, now: Date): Promise<string> {
  const base = `${snapshot.realPath}.ptyhub-backup-${backupStamp(now)}`;
  for (let n = 0; n < MAX_BACKUP_SUFFIX; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    try {
      await copyFile(snapshot.realPath, candidate, constants.COPYFILE_EXCL);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === "EEXIST") continue;
      throw err;
    }
    // The backup holds the same secrets as the original (~/.claude.json has account data).
    if (snapshot.mode !== undefined) await chmod(candidate, snapshot.mode);
    return candidate;
  }
  throw new ConfigEditError(`could not pick a backup file name next to ${snapshot.realPath}`);
}

async function unchangedSinceRead(snapshot: ConfigSnapshot): Promise<boolean> {
  try {
    return (await readFile(snapshot.realPath, "utf8")) === snapshot.text;
  } catch (err) {
    if (isMissing(err)) return snapshot.text === null;
    throw err;
  }
}

/** Writes `text` over the snapshot's file; returns the backup path (undefined for a new file). */
export async function writeConfig(snapshot: ConfigSnapshot, text: string, now: Date): Promise<string | undefined> {
  const tempPath = `${snapshot.realPath}.ptyhub-tmp-${process.pid}`;
  await mkdir(dirname(snapshot.realPath), { recursive: true });
  try {
    await writeFile(tempPath, text, { flag: "wx" });
    if (snapshot.mode !== undefined) await chmod(tempPath, snapshot.mode);
    if (!(await unchangedSinceRead(snapshot))) {
      throw new ConfigEditError(
        "it changed while ptyhub was editing it (is the client running?); run the command again",
      );
    }
    const backupPath = snapshot.text === null ? undefined : await backup(snapshot, now);
    await rename(tempPath, snapshot.realPath);
    return backupPath;
  } finally {
    await rm(tempPath, { force: true });
  }
}
