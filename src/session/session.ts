/**
 * A session: one backend (the bytes), one emulator (the screen and history), shell-integration
 * state (command boundaries, exit codes, cwd) and the readers' cursors. Everything above it —
 * exec, send, read, the daemon — works on this object only.
 */
import type { Backend, BackendKind, CloseSignal, ExitInfo } from "../backend/backend.ts";
import { Emulator, type Pos } from "../terminal/emulator.ts";
import type { HeadCapture } from "../terminal/history.ts";
import { classify, type SessionState } from "../terminal/classify.ts";
import { OSC_MARK_ID, parseMark, type Integration, type ShellFamily } from "../terminal/shell-integration.ts";
import { logger } from "../log.ts";
import { Emitter } from "../util/emitter.ts";
import { AppError } from "../errors.ts";

const log = logger("session");

/** First rows of a command's output kept even when history evicts them (for head + tail). */
export const HEAD_CAPTURE_ROWS = 2000;
/** Unread rows kept per reader when history evicts them before the reader comes back. */
const CURSOR_CAPTURE_ROWS = 500;
/** Marks remembered per session; waiters only look at marks newer than their own start. */
const MARK_LOG_SIZE = 64;

export type Phase = "starting" | "prompt" | "running";

export interface MarkRecord {
  seq: number;
  kind: "prompt" | "ready" | "start" | "end";
  pos: Pos;
  exitCode: number | null;
  cwd: string | null;
}

/** A command seen through shell integration: from its start mark to its end mark. */
export interface CommandRecord {
  startSeq: number;
  start: Pos;
  end: Pos | null;
  exitCode: number | null;
  capture: HeadCapture;
}

/** What resource subscribers are told about: a command finished, or the session ended. */
export type SessionEventKind = "command_finished" | "exited";

export interface ReadCursor {
  pos: Pos;
  /** Keeps the head of unread output that history evicts, and counts what it could not keep. */
  capture: HeadCapture;
  /** Screen rows at this client's last `screen`/`diff` read, for `diff`. */
  screen: string[] | null;
  usedAt: number;
}

export interface SessionOptions {
  id: string;
  kind: BackendKind;
  target: string;
  backend: Backend;
  cols: number;
  rows: number;
  integration: Integration;
  family: ShellFamily | null;
  nonce: string;
  persistent: boolean;
}

export class Session {
  readonly id: string;
  readonly kind: BackendKind;
  readonly target: string;
  /** Changes only once, from "none" to "marker", when a serial line's shell gets markers. */
  integration: Integration;
  family: ShellFamily | null;
  readonly persistent: boolean;
  readonly createdAt = Date.now();
  readonly emulator: Emulator;
  private readonly backend: Backend;
  private readonly nonce: string;

  phase: Phase = "starting";
  exit: ExitInfo | null = null;
  cwd: string | null = null;
  lastExitCode: number | null = null;
  /** The prompt is drawn and the line editor reads input (B mark since the last A/C/D). */
  inputReady = false;
  /** This shell's prompts carry the B mark (so it is worth waiting for). */
  readyMarks = false;
  /** The command running or last run, per shell integration. */
  command: CommandRecord | null = null;
  private marks: MarkRecord[] = [];
  private markSeq = 0;
  /** Time of the last byte from the program / of any activity (for idle expiry). */
  lastOutputAt = Date.now();
  lastActivityAt = Date.now();
  /** Number of humans attached (ptyhub attach). */
  attached = 0;
  /** Set while a term_exec owns the prompt, so a second one gets SESSION_BUSY. */
  execOwner: string | null = null;

  private readonly changes = new Emitter<void>();
  private readonly cursors = new Map<string, ReadCursor>();
  private readonly secrets = new Set<string>();
  private readonly outputTaps = new Set<(data: Uint8Array) => void>();
  private readonly events = new Emitter<SessionEventKind>();

  constructor(opts: SessionOptions) {
    this.id = opts.id;
    this.kind = opts.kind;
    this.target = opts.target;
    this.integration = opts.integration;
    this.family = opts.family;
    this.persistent = opts.persistent;
    this.backend = opts.backend;
    this.nonce = opts.nonce;
    this.emulator = new Emulator({
      cols: opts.cols,
      rows: opts.rows,
      oscId: OSC_MARK_ID,
      onOsc: (ev) => this.onMark(ev.data, ev.pos),
      resetLineOnBareCr: () => this.integration !== "shell" || this.phase !== "prompt",
    });
    this.backend.onData((data) => this.onData(data));
    this.backend.onExit((info) => this.onExit(info));
    this.backend.onConnectionChange?.(() => this.notify());
  }

  get pid(): number | null {
    return this.backend.pid;
  }
  get alive(): boolean {
    return this.exit === null;
  }
  get cols(): number {
    return this.emulator.cols;
  }
  get rows(): number {
    return this.emulator.rows;
  }

  /** The most recent mark's sequence number; waiters remember it and look only at newer marks. */
  get lastMarkSeq(): number {
    return this.markSeq;
  }

  marksAfter(seq: number): MarkRecord[] {
    return this.marks.filter((m) => m.seq > seq);
  }

  state(): SessionState {
    if (!this.exit && this.backend.connectionState?.() === "reconnecting") return "reconnecting";
    const em = this.emulator;
    const cursor = em.screenCursor();
    return classify({
      exited: this.exit !== null,
      atShellPrompt: this.integration === "shell" ? this.phase === "prompt" : null,
      beforeCursor: em.textBeforeCursor(),
      cursorOnLastRow: cursor.row === em.rows,
      altScreen: em.altScreen,
      tty: this.backend.ttyModes(),
      foreground: () => this.backend.foregroundCommands?.() ?? [],
    });
  }

  /** Subscribes to every change: output parsed, mark seen, exit. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /** Lifecycle events (command finished, exited), for resource subscriptions. */
  onEvent(listener: (kind: SessionEventKind) => void): () => void {
    return this.events.on(listener);
  }

  /** Raw output as it arrives (for attached humans and the daemon's replay). */
  tapOutput(tap: (data: Uint8Array) => void): () => void {
    this.outputTaps.add(tap);
    return () => this.outputTaps.delete(tap);
  }

  write(data: string | Uint8Array): void {
    this.lastActivityAt = Date.now();
    this.backend.write(data);
  }

  resize(cols: number, rows: number): void {
    this.emulator.resize(cols, rows);
    this.backend.resize(cols, rows);
    this.notify();
  }

  close(signal?: CloseSignal): Promise<ExitInfo> {
    return this.backend.close(signal);
  }

  /**
   * A POSIX shell at the far end of a line got the marker functions (src/serial/shell.ts):
   * from now on term_exec completes on markers, as in a local sh session.
   */
  adoptMarkers(): void {
    this.integration = "marker";
    this.family = "sh";
  }

  /** The per-session secret of the marks, for code that installs the mark functions itself. */
  get markNonce(): string {
    return this.nonce;
  }

  /** The backend itself, for what only one kind offers (term_serial's line control). */
  get backendHandle(): Backend {
    return this.backend;
  }

  /** Throws INVALID_ARGUMENT (before anything is sent) when the session's line has no break. */
  assertCanBreak(): void {
    if (!this.backend.sendBreak) {
      const hint = "Send ctrl+c to interrupt a program; use keys:[\"break\"] on serial sessions.";
      throw new AppError("INVALID_ARGUMENT", `session '${this.id}' is ${this.kind}: only serial lines have a break`, hint);
    }
  }

  async sendBreak(): Promise<void> {
    this.lastActivityAt = Date.now();
    await this.backend.sendBreak?.();
  }

  /** Throws SESSION_EXITED when the program has ended (nothing can be typed into it). */
  assertAlive(): void {
    if (this.exit) {
      throw new AppError("SESSION_EXITED", `session '${this.id}' has exited (${this.exit.reason})`, "Open a new session with term_open, or use term_exec without `session` to use the default one.");
    }
  }

  touch(): void {
    this.lastActivityAt = Date.now();
  }

  /** Remembers a secret typed into the session so it is masked in every later output. */
  addSecret(secret: string): void {
    if (secret.length > 0) this.secrets.add(secret);
  }

  redact(text: string): string {
    if (this.secrets.size === 0) return text;
    let out = text;
    for (const s of this.secrets) out = out.split(s).join("[secret]");
    return out;
  }

  /** The client's read cursor; a new client continues where the last active reader stopped. */
  cursor(clientId: string): ReadCursor {
    let c = this.cursors.get(clientId);
    if (!c) {
      const latest = this.latestCursor();
      const pos = latest ? latest.pos : { row: 0, col: 0, prefix: "", lineNo: 1 };
      const capture = this.emulator.capture(pos.row, CURSOR_CAPTURE_ROWS);
      // Take over what the last reader's capture kept (and counted as lost) of the unread output,
      // so a client replacing it (an MCP server restarted, for the daemon) reads exactly that.
      if (latest && latest.capture.startRow === pos.row) {
        capture.rows.push(...latest.capture.rows);
        capture.droppedChars = latest.capture.droppedChars;
      }
      c = { pos, capture, screen: null, usedAt: Date.now() };
      this.cursors.set(clientId, c);
    }
    return c;
  }

  /**
   * Forgets readers not seen for `maxIdleMs` (MCP servers that restarted leave theirs behind),
   * always keeping the most recent one: a reader that comes back later continues from there.
   */
  pruneCursors(maxIdleMs: number): void {
    const latest = this.latestCursor();
    const cutoff = Date.now() - maxIdleMs;
    for (const [id, c] of this.cursors) {
      if (c !== latest && c.usedAt < cutoff) {
        this.release(c.capture);
        this.cursors.delete(id);
      }
    }
  }

  private latestCursor(): ReadCursor | null {
    let latest: ReadCursor | null = null;
    for (const c of this.cursors.values()) if (!latest || c.usedAt > latest.usedAt) latest = c;
    return latest;
  }

  setCursor(clientId: string, pos: Pos): void {
    const c = this.cursor(clientId);
    this.release(c.capture);
    c.capture = this.emulator.capture(pos.row, CURSOR_CAPTURE_ROWS);
    c.pos = pos;
    c.usedAt = Date.now();
  }

  /** Registers a capture of the head of output starting at `pos` (release when done). */
  captureFrom(pos: Pos): HeadCapture {
    return this.emulator.capture(pos.row, HEAD_CAPTURE_ROWS);
  }

  release(capture: HeadCapture): void {
    this.emulator.history.release(capture);
  }

  dispose(): void {
    this.changes.clear();
    this.events.clear();
    this.outputTaps.clear();
    this.emulator.dispose();
  }

  private onData(data: Uint8Array): void {
    this.lastOutputAt = this.lastActivityAt = Date.now();
    for (const tap of this.outputTaps) tap(data);
    this.emulator.ingest(data);
    this.notify();
  }

  private onExit(info: ExitInfo): void {
    this.exit = info;
    if (this.command && !this.command.end) this.command.exitCode = info.exitCode;
    log.debug(`session ${this.id} ended: ${info.reason}`);
    this.notify();
    this.events.emit("exited");
  }

  /** Called mid-parse for OSC 6973: a shell-integration mark at `pos`. */
  private onMark(data: string, pos: Pos): void {
    const mark = parseMark(data, this.nonce);
    if (!mark) return; // Not ours: wrong nonce, so program output that merely looks like a mark.
    const record: MarkRecord = { seq: ++this.markSeq, kind: mark.kind, pos, exitCode: null, cwd: null };
    this.inputReady = mark.kind === "ready";
    if (mark.kind === "ready") {
      this.readyMarks = true;
      this.phase = "prompt";
    } else if (mark.kind === "start") {
      this.phase = "running";
      if (this.command) this.release(this.command.capture);
      this.command = { startSeq: record.seq, start: pos, end: null, exitCode: null, capture: this.captureFrom(pos) };
    } else if (mark.kind === "end") {
      this.phase = "prompt";
      record.exitCode = mark.exitCode;
      record.cwd = mark.cwd;
      if (mark.cwd) this.cwd = mark.cwd;
      if (this.command && !this.command.end) {
        this.command.end = pos;
        this.command.exitCode = mark.exitCode;
        this.lastExitCode = mark.exitCode;
        // Mid-parse: tell subscribers once this chunk is through.
        queueMicrotask(() => this.events.emit("command_finished"));
      }
    } else {
      this.phase = "prompt";
    }
    this.marks.push(record);
    if (this.marks.length > MARK_LOG_SIZE) this.marks.shift();
  }

  private notify(): void {
    this.changes.emit();
  }
}
