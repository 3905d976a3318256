/**
 * Optional full recordings of sessions in asciicast v2, so a human can replay what an agent did
 * with `asciinema play`: one file per run of a session, `SESSION.cast` beside its audit trail (the
 * previous run's becomes `SESSION.1.cast`, and so on). What the terminal showed is recorded, with
 * secrets given through term_secret masked; what was typed is in the trail. Resizes are "r"
 * events. Events are written in batches, since a flood would otherwise cost a write(2) per chunk,
 * and a recording stops at a size limit with a marker event that says so.
 */
import { closeSync, existsSync, fchmodSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Session } from "../session/session.ts";
import { OSC_MARK_ID, OSC_MARK_PATTERN } from "../terminal/shell-scripts.ts";
import { logger } from "../log.ts";

const log = logger("audit");

/** Earlier runs' recordings kept per session name, beyond the current one. */
export const RECORDINGS_KEPT = 5;
/** Events are written once this much is pending, or FLUSH_MS after the first of them. */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 200;
/** asciicast v2 times are seconds; microseconds are as fine as a terminal needs. */
const TIME_DECIMALS = 6;

export const CAST_SUFFIX = ".cast";

/** ptyhub's shell-integration marks: not part of what the terminal showed, and they carry the nonce. */
const MARK_START = `\x1b]${OSC_MARK_ID};`;
const MARK = OSC_MARK_PATTERN;
/** A mark never terminated within this much output is let through (it was not one of ours). */
const MARK_CARRY_MAX = 4096;

export function castFile(dir: string, session: string, run = 0): string {
  return join(dir, run === 0 ? `${session}${CAST_SUFFIX}` : `${session}.${run}${CAST_SUFFIX}`);
}

export class SessionRecording {
  private readonly startedAt = performance.now();
  private readonly decoder = new TextDecoder();
  private pending: string[] = [];
  private pendingBytes = 0;
  private written = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private cols: number;
  private rows: number;
  private stopped = false;
  /** Output held back because it may be the start of a mark that the next read completes. */
  private carry = "";
  private readonly untap: () => void;

  private constructor(
    private readonly session: Session,
    private readonly fd: number,
    private readonly maxBytes: number,
  ) {
    this.cols = session.cols;
    this.rows = session.rows;
    const header = {
      version: 2,
      width: this.cols,
      height: this.rows,
      timestamp: Math.floor(Date.now() / 1000),
      // The kind and target name where it ran: a container's or a host's session, not only its name.
      title: `ptyhub ${session.id}: ${session.kind} ${session.target}`,
      env: { TERM: "xterm-256color" },
    };
    this.append(`${JSON.stringify(header)}\n`);
    this.untap = session.tapOutput((data) => this.output(data));
  }

  /** Starts recording `session` into `dir`, moving earlier runs' files along; null if it cannot. */
  static begin(dir: string, session: Session, maxBytes: number): SessionRecording | null {
    try {
      rotate(dir, session.id);
      const fd = openSync(castFile(dir, session.id), "w", 0o600);
      fchmodSync(fd, 0o600); // the umask may have widened the mode the file was created with
      return new SessionRecording(session, fd, maxBytes);
    } catch (err) {
      log.warn(`cannot record session '${session.id}': ${(err as Error).message}`);
      return null;
    }
  }

  /** The session ended (or the host shuts down): what is pending is written and the file closed. */
  end(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.untap();
    const tail = this.carry + this.decoder.decode();
    if (tail) this.event("o", this.session.redact(tail));
    this.flush();
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }

  private output(data: Uint8Array): void {
    if (this.stopped) return;
    if (this.session.cols !== this.cols || this.session.rows !== this.rows) {
      this.cols = this.session.cols;
      this.rows = this.session.rows;
      this.event("r", `${this.cols}x${this.rows}`);
    }
    // Streaming decode: a character split across two reads comes out whole with the second.
    const text = this.withoutMarks(this.decoder.decode(data, { stream: true }));
    if (text) this.event("o", this.session.redact(text));
  }

  /** `text` without ptyhub's marks, holding back a mark (or the start of one) cut off at its end. */
  private withoutMarks(text: string): string {
    let s = (this.carry + text).replace(MARK, "");
    this.carry = "";
    const cut = partialMarkAt(s);
    if (cut >= 0 && s.length - cut <= MARK_CARRY_MAX) {
      this.carry = s.slice(cut);
      s = s.slice(0, cut);
    }
    return s;
  }

  private event(code: "o" | "r" | "m", data: string): void {
    const seconds = ((performance.now() - this.startedAt) / 1000).toFixed(TIME_DECIMALS);
    const line = `[${seconds}, "${code}", ${JSON.stringify(data)}]\n`;
    if (code !== "m" && this.written + this.pendingBytes + Buffer.byteLength(line) > this.maxBytes) {
      this.event("m", `ptyhub stopped this recording at its size limit (${this.maxBytes} bytes)`);
      this.stopped = true;
      this.untap();
      this.flush();
      closeSync(this.fd);
      return;
    }
    this.append(line);
  }

  private append(line: string): void {
    this.pending.push(line);
    this.pendingBytes += Buffer.byteLength(line);
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
      this.flushTimer.unref?.();
    }
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(""));
    this.pending = [];
    this.pendingBytes = 0;
    try {
      writeSync(this.fd, data);
      this.written += data.length;
    } catch (err) {
      // A full disk must not break the session; the daemon's log says what was lost.
      log.warn(`cannot write the recording of '${this.session.id}': ${(err as Error).message}`);
    }
  }
}

/** SESSION.cast → SESSION.1.cast → … → SESSION.<RECORDINGS_KEPT>.cast, the oldest dropped. */
function rotate(dir: string, session: string): void {
  const oldest = castFile(dir, session, RECORDINGS_KEPT);
  if (existsSync(oldest)) unlinkSync(oldest);
  for (let run = RECORDINGS_KEPT - 1; run >= 0; run--) {
    const from = castFile(dir, session, run);
    if (existsSync(from)) renameSync(from, castFile(dir, session, run + 1));
  }
}

/** Where an unterminated mark, or a prefix of MARK_START, begins at the end of `s` (-1: none). */
function partialMarkAt(s: string): number {
  const open = s.lastIndexOf(MARK_START);
  if (open >= 0 && !/[\x07]|\x1b\\/.test(s.slice(open + MARK_START.length))) return open;
  for (let k = Math.min(MARK_START.length - 1, s.length); k > 0; k--) {
    if (s.endsWith(MARK_START.slice(0, k))) return s.length - k;
  }
  return -1;
}
