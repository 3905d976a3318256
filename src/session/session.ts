/**
 * A session: one backend (the bytes), one emulator (the screen and history), shell-integration
 * state (command boundaries, exit codes, cwd) and the readers' cursors. Everything above it —
 * exec, send, read, the daemon — works on this object only.
 */
import type { SiteFiles } from "../backend/site-files.ts";
import type { Backend, CloseSignal, ExitInfo } from "../backend/backend.ts";
import type { BackendKind } from "../api/kinds.ts";
import type { TtyWait } from "../util/tty-wait.ts";
import { Emulator, type Pos } from "../terminal/emulator.ts";
import type { HeadCapture } from "../terminal/history.ts";
import { classify, type SessionState } from "../terminal/classify.ts";
import { OSC_MARK_ID, parseMark, type Integration, type ShellFamily } from "../terminal/shell-integration.ts";
import { shellDescriptor } from "../terminal/shells/all-shells.ts";
import { logger } from "../log.ts";
import { Emitter } from "../util/emitter.ts";
import { Secrets } from "./redaction.ts";
import { AppError } from "../api/errors.ts";
import { RawOutput } from "./raw-output.ts";
import { ReadCursors, type ReadCursor, type RepeatRange } from "./read-cursors.ts";
import { ExecClaim } from "./exec-claim.ts";
import { kindDescriptor } from "../backend/registry/kinds.ts";
import { carriesInterrupt } from "../terminal/interrupt.ts";
import type { CommandRecord, MarkRecord, Phase } from "./marks.ts";
import { ShellQuestions } from "./judge-request.ts";

const log = logger("session");

/** First rows of a command's output kept even when history evicts them (for head + tail). */
export const HEAD_CAPTURE_ROWS = 2000;
/** Marks remembered per session; waiters only look at marks newer than their own start. */
const MARK_LOG_SIZE = 64;

/** What resource subscribers are told about: a command finished, or the session ended. */
export type SessionEventKind = "command_finished" | "exited";

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
  /** The working directory the program started in, where known. */
  cwd?: string | null;
  /** The host's secrets, shared by all its sessions (redaction.ts); default: this session's own. */
  secrets?: Secrets;
  /** A mark (S) will say when the program starts (a remote command: src/backend/ssh/remote-shell.ts). */
  startMark?: boolean;
  /** Its files, where they are not this machine's and the kind can ask about them (the guard does). */
  files?: SiteFiles;
}

export class Session {
  readonly id: string;
  readonly kind: BackendKind;
  readonly target: string;
  /** Its files, where the guard asks about them there (a container's); null: this machine's or unknown. */
  readonly siteFiles: SiteFiles | null;
  /**
   * Changes from "none" to "marker" when a serial line's shell gets markers (adoptMarkers), and
   * with `family` when another shell takes the prompt (adoptShell).
   */
  integration: Integration;
  family: ShellFamily | null;
  readonly persistent: boolean;
  readonly createdAt = Date.now();
  readonly emulator: Emulator;
  /** The clients' read cursors (read-cursors.ts). */
  private readonly readers: ReadCursors;
  private readonly backend: Backend;
  /** Authenticates shell-integration marks; shared only with a remote ptyhub reattaching (daemon). */
  readonly nonce: string;

  // State below changes only through this class's own methods (marks, output, exit, claims).
  private currentPhase: Phase = "starting";
  private exitInfo: ExitInfo | null = null;
  private currentCwd: string | null = null;
  private lastExit: number | null = null;
  private ready = false;
  private seenReadyMarks = false;
  private currentCommand: CommandRecord | null = null;
  private marks: MarkRecord[] = [];
  private markSeq = 0;
  /** The newest mark when input was last written: marks after it answer that input. */
  private markSeqAtWrite = 0;
  private outputAt = Date.now();
  private activityAt = Date.now();
  private attachedHumans = 0;
  private readonly execClaim = new ExecClaim();
  /** The last line term_exec or term_send typed, and where: its echo is not the program's output. */
  private typedInput: { at: Pos; text: string } | null = null;
  /** When input last carried an interrupt (ctrl+c, ctrl+\\, ctrl+z) into a running command. */
  private interruptAt: number | null = null;
  /** Hooks were just installed into a running shell: its first end mark reports the installing line. */
  private reinstallEndPending = false;
  /** See programStart: whether a start mark is due, and when and where it came. */
  private readonly programStartDue: boolean;
  private programStartedAt: { at: number; pos: Pos } | null = null;

  private readonly changes = new Emitter<void>();
  private readonly secrets: Secrets;
  private readonly outputTaps = new Set<(data: Uint8Array) => void>();
  /** The output as sent, escape sequences kept (term_read raw). */
  readonly rawOutput = new RawOutput();
  private readonly events = new Emitter<SessionEventKind>();
  /** The shell's questions before it runs a command, and their answers (judge-request.ts). */
  readonly questions: ShellQuestions;

  constructor(opts: SessionOptions) {
    this.id = opts.id;
    this.kind = opts.kind;
    this.target = opts.target;
    this.siteFiles = opts.files ?? null;
    this.integration = opts.integration;
    this.family = opts.family;
    this.persistent = opts.persistent;
    this.backend = opts.backend;
    this.nonce = opts.nonce;
    // Answered on the backend's private channel, never on the terminal: keys typed ahead wait in
    // the terminal's input for the shell, and an answer must not be read as one.
    this.questions = new ShellQuestions(opts.nonce, (line) => {
      if (this.exitInfo === null) this.backend.sendVerdict?.(line);
    });
    this.programStartDue = opts.startMark === true;
    this.secrets = opts.secrets ?? new Secrets();
    this.currentCwd = opts.cwd ?? null;
    this.emulator = new Emulator({
      cols: opts.cols,
      rows: opts.rows,
      oscId: OSC_MARK_ID,
      onOsc: (ev) => this.onMark(ev.data, ev.pos),
      resetLineOnBareCr: () => this.integration !== "shell" || this.currentPhase !== "prompt",
      // An attached human's terminal answers the query itself: a second answer would be typed input.
      onCursorReport: (report) => {
        if (this.attachedHumans === 0 && !this.exitInfo) this.backend.write(report);
      },
    });
    this.readers = new ReadCursors(this.emulator);
    this.backend.onData((data) => this.onData(data));
    this.backend.onExit((info) => this.onExit(info));
    this.backend.onConnectionChange?.(() => this.notify());
  }

  get pid(): number | null {
    return this.backend.pid;
  }
  get alive(): boolean {
    return this.exitInfo === null;
  }
  get phase(): Phase {
    return this.currentPhase;
  }
  /** How the program ended, or null while it runs. */
  get exit(): ExitInfo | null {
    return this.exitInfo;
  }
  /** The shell's working directory after its last command, where known. */
  get cwd(): string | null {
    return this.currentCwd;
  }
  /**
   * The directory a line typed now would run in, for judging it (guard): a local shell's real one,
   * from the kernel, since a program that forged an end mark could have moved `cwd`; elsewhere
   * (SSH, serial, no /proc) the last mark's.
   */
  get judgedCwd(): string | null {
    return this.backend.foregroundCwd?.() ?? this.currentCwd;
  }
  get lastExitCode(): number | null {
    return this.lastExit;
  }
  /** The prompt is drawn and the line editor reads input (B or P mark since the last A/C/D). */
  get inputReady(): boolean {
    return this.ready;
  }
  /** This shell's prompts carry the B mark (so it is worth waiting for). */
  get readyMarks(): boolean {
    return this.seenReadyMarks;
  }
  /** Names of the programs in the terminal's foreground process group; null where that cannot be seen. */
  foregroundCommands(): string[] | null {
    return this.backend.foregroundCommands ? this.backend.foregroundCommands() : null;
  }
  /** What the foreground programs really are (their executables' names), where visible. */
  foregroundExecutables(): string[] {
    return this.backend.foregroundExecutables?.() ?? [];
  }
  /** The command running or last run, per shell integration. */
  get command(): CommandRecord | null {
    return this.currentCommand;
  }
  /** Time of the last byte from the program. */
  get lastOutputAt(): number {
    return this.outputAt;
  }
  /** Time of any activity: output, input, a lookup (for idle expiry). */
  get lastActivityAt(): number {
    return this.activityAt;
  }
  /** Number of humans attached (ptyhub attach). */
  get attached(): number {
    return this.attachedHumans;
  }
  /** Whether a term_exec owns the prompt now (a second one gets SESSION_BUSY). */
  get execBusy(): boolean {
    return this.execClaim.held;
  }

  /** A human attaches; returns the detach, which counts once however often it is called. */
  attach(): () => void {
    this.attachedHumans++;
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.attachedHumans--;
    };
  }

  /**
   * A term_exec takes the prompt: SESSION_BUSY while another one owns it, a command runs, or the
   * shell waits for the rest of a line. Returns the release, which the caller runs when done.
   */
  claimExec(clientId: string): () => void {
    return this.execClaim.claim(clientId, this.id, this.currentPhase, () => this.state());
  }
  /**
   * SESSION_BUSY for a command still running. One that waits for input says so, with how to answer:
   * seen with Codex, whose term_secret the human declined, a model told only "still running a
   * command" had no reason to think of the password prompt still open.
   */

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

  /**
   * `ttyWait`: the kernel's answer a check has just had (see foregroundTtyWait), so that the state
   * agrees with it. Asked again, a program may have blocked meanwhile, after output that is read
   * from the PTY but not parsed yet: a state of `password` with its question not on the screen.
   */
  state(ttyWait?: TtyWait): SessionState {
    if (!this.exit && this.backend.connectionState?.() === "reconnecting") return "reconnecting";
    const em = this.emulator;
    const cursor = em.screenCursor();
    if (this.exitInfo === null && this.currentPhase === "continuation") return "continuation";
    const atShellPrompt = this.atShellPrompt();
    return classify({
      exited: this.exitInfo !== null,
      atShellPrompt,
      beforeCursor: em.textBeforeCursor(),
      cursorOnLastRow: cursor.row === em.rows,
      altScreen: em.altScreen,
      // At a marked prompt the modes decide nothing, and reading them opens the tty (every result).
      tty: atShellPrompt === true ? null : this.backend.ttyModes(),
      foreground: () => this.backend.foregroundCommands?.() ?? [],
      waitsForTty: this.canAskTtyWait()
        ? () => (ttyWait !== undefined ? ttyWait : (this.backend.foregroundTtyWait?.() ?? null)) !== null
        : undefined,
    });
  }

  /** Whether the kernel can say if the foreground program waits for the terminal (local PTYs on Linux). */
  canAskTtyWait(): boolean {
    return this.backend.foregroundTtyWait !== undefined && process.platform === "linux";
  }

  /**
   * Whether an end mark counts only once the kernel agrees the shell is back at its prompt
   * (end-agreement.ts): local shells on Linux. Elsewhere the nonce is all there is.
   */
  get endsNeedAgreement(): boolean {
    return kindDescriptor(this.kind).localProcess && this.integration !== "none" && this.canAskTtyWait();
  }

  /**
   * The kernel agreed that the shell is back at its prompt after the end mark `endSeq`: the
   * current command's end is final (later end marks, of empty lines, no longer move it).
   */
  confirmEnd(endSeq: number): void {
    if (this.currentCommand?.endSeq === endSeq) this.currentCommand.endConfirmed = true;
  }

  /**
   * Shell integration's verdict on "at the prompt": hooks mark every command. Markers only wrap
   * term_exec's commands, so there the prompt is certain only when a mark came after the last input
   * (a line typed with term_send runs unmarked); otherwise it is unknown (null).
   */
  private atShellPrompt(): boolean | null {
    if (this.integration === "shell") return this.currentPhase === "prompt";
    return this.integration === "marker" && this.currentPhase === "prompt" && this.markedSinceInput ? true : null;
  }

  /** The shell printed a mark after the last input written: what it shows now answers that input. */
  get markedSinceInput(): boolean {
    return this.markSeq > this.markSeqAtWrite;
  }

  /** Subscribes to every change: output parsed, mark seen, exit. Returns the unsubscribe. */
  onChange(listener: () => void): () => void {
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

  /** When an interrupt was last typed into a running command (its end mark is then due), or null. */
  get interruptedAt(): number | null {
    return this.interruptAt;
  }

  /**
   * When and where the program started, for a session whose start is marked (S); null before the
   * mark, or when none is due. Until then any silence is the start-up's, not the program's.
   */
  get programStart(): { at: number; pos: Pos } | null {
    return this.programStartedAt;
  }

  /** A start mark is due and has not come yet. */
  get awaitingProgramStart(): boolean {
    return this.programStartDue && this.programStartedAt === null;
  }

  /** The last text typed through term_exec or term_send, and where (null: keys only, or none). */
  get lastTyped(): { at: Pos; text: string } | null {
    return this.typedInput;
  }

  /** term_exec and term_send say what they type where, so readers can tell its echo from output. */
  noteTyped(at: Pos, text: string): void {
    this.typedInput = text.length > 0 ? { at, text } : null;
  }

  write(data: string | Uint8Array): void {
    this.activityAt = Date.now();
    this.markSeqAtWrite = this.markSeq;
    if (this.currentPhase === "running" && carriesInterrupt(data)) this.interruptAt = this.activityAt;
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

  /** Host shutdown: a program that can outlive this host is left running; any other is hung up. */
  detach(): Promise<ExitInfo> {
    return this.backend.detach ? this.backend.detach() : this.backend.close("HUP");
  }

  /**
   * A POSIX shell at the far end of a line got the marker functions (src/session/serial-shell.ts):
   * from now on term_exec completes on markers, as in a local sh session.
   */
  adoptMarkers(): void {
    this.integration = "marker";
    this.family = "sh";
  }

  /**
   * Another shell now reads the session's commands: one that replaced the shell (`exec zsh`) or
   * runs inside it, or the outer one again after a nested shell exited (src/session/reintegrate.ts).
   */
  adoptShell(family: ShellFamily, integration: Integration): void {
    this.family = family;
    this.integration = integration;
  }

  /** The backend itself, for what only one kind offers (term_serial's line control). */
  get backendHandle(): Backend {
    return this.backend;
  }

  async sendBreak(): Promise<void> {
    this.activityAt = Date.now();
    await this.backend.sendBreak?.();
  }

  /** Throws SESSION_EXITED when the program has ended (nothing can be typed into it). */
  assertAlive(): void {
    if (this.exitInfo) {
      throw new AppError(
        "SESSION_EXITED",
        `session '${this.id}' has exited (${this.exitInfo.reason})`,
        "Open a new session with term_open, or use term_exec without `session` to use the default one.",
      );
    }
  }

  touch(): void {
    this.activityAt = Date.now();
  }

  /**
   * Remembers a secret typed into the session so it is masked in every later output, of every
   * session of the host; false when it is too short to mask (redaction.ts).
   */
  addSecret(secret: string): boolean {
    return this.secrets.add(secret);
  }

  redact(text: string): string {
    return this.secrets.redact(text);
  }

  /** Masks secrets in every field of a result this session produced (see redaction.ts). */
  redactFields<T extends object>(result: T): T {
    return this.secrets.redactFields(result);
  }

  /**
   * The client's read cursor; a new client continues where the last active reader surely stopped
   * (what that reader's unconfirmed answers held comes again, labelled: see repeatRange).
   */
  cursor(clientId: string): ReadCursor {
    return this.readers.cursor(clientId);
  }

  /** The lines a read from this client's cursor may already have delivered (read-cursors.ts). */
  repeatRange(clientId: string): RepeatRange | null {
    return this.readers.repeatRange(clientId);
  }

  /** Forgets readers not seen for `maxIdleMs`, always keeping the most recent one. */
  pruneCursors(maxIdleMs: number): void {
    this.readers.prune(maxIdleMs);
  }

  /** Moves the client's cursor to `pos`, at once or once the call's answer is delivered. */
  setCursor(clientId: string, pos: Pos): void {
    this.readers.move(clientId, pos, this.rawOutput.total, this.markSeq);
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
    this.questions.clear();
    this.outputTaps.clear();
    this.emulator.dispose();
  }

  private onData(output: Uint8Array): void {
    const data = this.questions.takeFrom(output);
    if (data.length === 0) return;
    this.outputAt = this.activityAt = Date.now();
    for (const tap of this.outputTaps) tap(data);
    this.rawOutput.push(data);
    this.emulator.ingest(data);
    this.notify();
  }

  private onExit(info: ExitInfo): void {
    this.exitInfo = info;
    if (this.currentCommand && !this.currentCommand.end) this.currentCommand.exitCode = info.exitCode;
    log.debug(`session ${this.id} ended: ${info.reason}`);
    this.notify();
    this.events.emit("exited");
  }

  /**
   * bash's line editor (readline) takes the prompt to start at column 0, but bash draws it where
   * the command's output left the cursor. On a row that output left unfinished, readline's cursor
   * moves over a line that wraps land a row off, and the next command's output is written over the
   * last row of its echo (found by the oracle). This screen starts the prompt on a row of its own,
   * where readline thinks it is, as zsh and fish do for real. Not when anything was typed while the
   * command ran: the tty echoed it before the prompt, and readline shows it again after the prompt,
   * on the same row, which the echo removal of term_send counts on.
   */
  private promptNeedsFreshRow(endAt: Pos, command: CommandRecord): boolean {
    return (
      shellDescriptor(this.family)?.promptAtColumnZero === true &&
      endAt.col > 0 &&
      !this.emulator.altScreen &&
      this.markSeqAtWrite < command.startSeq
    );
  }

  /** Called mid-parse for OSC 6973: a shell-integration mark at `pos`. */
  private onMark(data: string, pos: Pos): void {
    let mark = parseMark(data, this.nonce);
    if (!mark) return; // Not ours: wrong nonce, so program output that merely looks like a mark.
    if (mark.kind === "reinstalled") {
      this.reinstallEndPending = true;
      return;
    }
    if (mark.kind === "judge") return this.questions.asked(mark);
    if (mark.kind === "program") {
      // Only the first counts: a program that prints the mark itself cannot move its start.
      if (this.programStartDue) this.programStartedAt ??= { at: Date.now(), pos };
      return;
    }
    if (this.reinstallEndPending) {
      this.reinstallEndPending = false;
      // The status of the line that sourced the hooks: the prompt that follows is all it says.
      if (mark.kind === "end") mark = { kind: "prompt" };
    }
    const record: MarkRecord = {
      seq: ++this.markSeq,
      kind: mark.kind,
      pos,
      exitCode: null,
      cwd: null,
      at: Date.now(),
    };
    // The line editor reads input after the prompt (B) and after a continuation prompt (P).
    this.ready = mark.kind === "ready" || mark.kind === "continuation";
    if (mark.kind === "ready") {
      this.seenReadyMarks = true;
      this.currentPhase = "prompt";
    } else if (mark.kind === "continuation") {
      this.currentPhase = "continuation";
    } else if (mark.kind === "start") {
      this.currentPhase = "running";
      if (this.currentCommand) this.release(this.currentCommand.capture);
      const capture = this.captureFrom(pos);
      this.currentCommand = {
        startSeq: record.seq,
        start: pos,
        end: null,
        endSeq: null,
        endConfirmed: false,
        exitCode: null,
        capture,
      };
    } else if (mark.kind === "end") {
      this.currentPhase = "prompt";
      record.exitCode = mark.exitCode;
      record.cwd = mark.cwd;
      if (mark.cwd) this.currentCwd = mark.cwd;
      const command = this.currentCommand;
      if (command && (!command.end || (!command.endConfirmed && this.endsNeedAgreement))) {
        if (!command.end && this.promptNeedsFreshRow(pos, command)) this.emulator.startFreshRow();
        command.end = pos;
        command.endSeq = record.seq;
        command.endConfirmed = !this.endsNeedAgreement;
        command.exitCode = mark.exitCode;
        this.lastExit = mark.exitCode;
        // Mid-parse: tell subscribers later, after this turn. The daemon forwards events to every
        // MCP server it serves; sent now, that frame would go out (and wake the server) ahead of
        // the term_exec result this mark completes.
        setImmediate(() => this.events.emit("command_finished"));
      }
    } else {
      // A: a prompt follows.
      this.currentPhase = "prompt";
    }
    this.marks.push(record);
    if (this.marks.length > MARK_LOG_SIZE) this.marks.shift();
  }

  private notify(): void {
    this.changes.emit();
  }
}
