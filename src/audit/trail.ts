/**
 * The audit trail's files: one append-only JSON-lines file per session under
 * $XDG_STATE_HOME/ptyhub/audit (directory 0700, files 0600). A file past the size limit is
 * rotated (`ID.jsonl` → `ID.1.jsonl` → …); files untouched for longer than the retention period
 * are deleted. Writes are synchronous appends so that the trail is complete up to a crash; each
 * session's file stays open (with its size known) while the session lives, because opening,
 * stat-ing and closing it for every entry cost a fifth of a `term_exec "echo hi"` (profiled).
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, stateDir } from "../paths.ts";
import { logger } from "../log.ts";
import { CAST_SUFFIX } from "./recording.ts";

const log = logger("audit");

/** Rotated files kept per session, beyond the current one. */
const ROTATED_KEEP = 5;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Files the retention period applies to: trails and recordings (recording.ts). */
const PRUNED_SUFFIXES = [".jsonl", CAST_SUFFIX];

export interface AuditSettings {
  enabled: boolean;
  retention_days: number;
  max_file_bytes: number;
  /** asciicast recordings (recording.ts) beside the trail. */
  recording: boolean;
  recording_max_bytes: number;
}

/** One line of the trail; `t` and `session` are filled in by the trail. */
export interface AuditEntry {
  event: string;
  [field: string]: unknown;
}

export function auditDir(): string {
  return ensurePrivateDir(join(stateDir(), "audit"));
}

/** The current file of a session's trail, and its rotated predecessors, oldest first. */
export function trailFiles(session: string, dir = auditDir()): string[] {
  const rotated: string[] = [];
  for (let n = ROTATED_KEEP; n >= 1; n--) {
    const p = join(dir, `${session}.${n}.jsonl`);
    if (existsSync(p)) rotated.push(p);
  }
  const current = join(dir, `${session}.jsonl`);
  return existsSync(current) ? [...rotated, current] : rotated;
}

/** A session's current trail file, open for appending. */
interface OpenTrail {
  fd: number;
  bytes: number;
}

export class AuditTrail {
  private dir: string | null = null;
  private readonly open = new Map<string, OpenTrail>();

  constructor(private readonly settings: AuditSettings) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /** The directory of the trails (created on first use). */
  get directory(): string {
    return (this.dir ??= auditDir());
  }

  /**
   * Appends one entry, whole or not at all: a write the disk cut short (full, or over a size
   * limit) is truncated away again, so no torn line is left for the next to be glued to. Returns
   * the reason when the entry could not be written (the caller decides whether that stops its
   * call: a line about to be typed does, see recorder.ts), else null.
   */
  record(session: string, entry: AuditEntry): string | null {
    if (!this.settings.enabled) return null;
    let trail: OpenTrail | null = null;
    let before = 0;
    try {
      const dir = (this.dir ??= auditDir());
      trail = this.open.get(session) ?? this.openTrail(dir, session);
      if (trail.bytes >= this.settings.max_file_bytes) {
        this.release(session);
        this.rotate(dir, session);
        trail = this.openTrail(dir, session);
      }
      before = trail.bytes;
      const line = Buffer.from(JSON.stringify({ t: new Date().toISOString(), session, ...entry }) + "\n");
      let at = 0;
      while (at < line.length) at += writeSync(trail.fd, line, at, line.length - at);
      trail.bytes += line.length;
      return null;
    } catch (err) {
      if (trail) this.cutBack(session, trail, before);
      const why = (err as Error).message;
      log.warn(`cannot write the audit trail of '${session}': ${why}`);
      return why;
    }
  }

  /** Removes what a failed write left after `size` bytes (a torn line). */
  private cutBack(session: string, trail: OpenTrail, size: number): void {
    try {
      ftruncateSync(trail.fd, size);
      trail.bytes = size;
    } catch (err) {
      // The file stays as it is; reopening measures it again.
      log.warn(`cannot remove a torn entry from the audit trail of '${session}': ${(err as Error).message}`);
      this.release(session);
    }
  }

  /** The session ended: its file is closed (a later entry opens it again). */
  release(session: string): void {
    const trail = this.open.get(session);
    if (!trail) return;
    this.open.delete(session);
    closeSync(trail.fd);
  }

  /** Closes every open file. */
  releaseAll(): void {
    for (const session of [...this.open.keys()]) this.release(session);
  }

  /** Deletes trail files and recordings not written to within the retention period. */
  prune(now = Date.now()): number {
    if (!this.settings.enabled || this.settings.retention_days === 0) return 0;
    let removed = 0;
    try {
      const dir = (this.dir ??= auditDir());
      for (const name of readdirSync(dir)) {
        const suffix = PRUNED_SUFFIXES.find((s) => name.endsWith(s));
        if (!suffix) continue;
        // A live session's current file is being written to, however long it was quiet.
        if (this.open.has(name.slice(0, -suffix.length))) continue;
        const path = join(dir, name);
        if (now - statSync(path).mtimeMs > this.settings.retention_days * DAY_MS) {
          unlinkSync(path);
          removed++;
        }
      }
    } catch (err) {
      log.warn(`cannot prune the audit trail: ${(err as Error).message}`);
    }
    return removed;
  }

  private openTrail(dir: string, session: string): OpenTrail {
    const fd = openSync(join(dir, `${session}.jsonl`), "a", 0o600);
    fchmodSync(fd, 0o600); // the umask may have widened the mode the file was created with
    const trail = { fd, bytes: fstatSync(fd).size };
    this.open.set(session, trail);
    return trail;
  }

  private rotate(dir: string, session: string): void {
    const oldest = join(dir, `${session}.${ROTATED_KEEP}.jsonl`);
    if (existsSync(oldest)) unlinkSync(oldest);
    for (let n = ROTATED_KEEP - 1; n >= 1; n--) {
      const p = join(dir, `${session}.${n}.jsonl`);
      if (existsSync(p)) renameSync(p, join(dir, `${session}.${n + 1}.jsonl`));
    }
    renameSync(join(dir, `${session}.jsonl`), join(dir, `${session}.1.jsonl`));
  }
}
