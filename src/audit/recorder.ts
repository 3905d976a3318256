/**
 * What goes into a session's audit trail and when: the session opening and ending, every line a
 * client typed (who: the MCP client's name/version), what a human typed in `ptyhub attach`,
 * command boundaries seen through shell integration (exit code, cwd), and the guard's decisions.
 * Secrets given with term_secret are never written, and text typed while the terminal hid its
 * echo (a password prompt) is replaced by a note.
 */
import type { HumanVia } from "../api/fields.ts";
import type { Session } from "../session/session.ts";
import type { HostEvent } from "../api/host.ts";

/** What the recorder needs of the sessions it records: look one up, hear them open and close. */
export interface RecordedSessions {
  get(id: string): Session;
  onSessionEvent(listener: (event: HostEvent) => void): () => void;
}
import type { GuardDecision } from "../guard/guard.ts";
import { AuditTrail, type AuditEntry, type AuditSettings } from "./trail.ts";
import { SessionRecording } from "./recording.ts";
import { AppError } from "../api/errors.ts";

/** A human's keystrokes are written as one entry per line, or per this many characters. */
const HUMAN_CHUNK_CHARS = 1000;
/**
 * Keys that act at once (the terminal turns them into a signal or an end of input): each one ends
 * the human's entry, and is named in it, so the trail shows the interrupt when it happened.
 */
const SIGNAL_KEYS: ReadonlyMap<string, string> = new Map([
  ["\x03", "ctrl+c"],
  ["\x04", "ctrl+d"],
  ["\x1a", "ctrl+z"],
]);
/** How often old trails are looked for (the retention itself is a setting). */
const PRUNE_INTERVAL_MS = 6 * 60 * 60 * 1000;
export const HUMAN = "human (ptyhub attach)";
/** Who the trail names for each way a human types in. */
const HUMAN_WHO: Record<HumanVia, string> = { attach: HUMAN, web: "human (web view)", app: "human (MCP App)" };
const HIDDEN_INPUT = "[hidden: typed while the terminal did not echo]";

interface Watched {
  session: Session;
  lastMark: number;
  unsubscribe: () => void;
  /** A human's keystrokes since their last Enter. */
  human: string;
  humanHidden: boolean;
  humanVia: HumanVia;
  /** A command's start mark was seen and its end not yet (prompts also end with an end mark). */
  inCommand: boolean;
}

export class SessionAudit {
  private readonly trail: AuditTrail;
  private readonly watched = new Map<string, Watched>();
  private readonly recordings = new Map<string, SessionRecording>();
  private readonly pruner: ReturnType<typeof setInterval> | null = null;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly settings: AuditSettings,
    private readonly manager: RecordedSessions,
  ) {
    this.trail = new AuditTrail(settings);
    if (!settings.enabled) return;
    this.trail.prune();
    this.pruner = setInterval(() => this.trail.prune(), PRUNE_INTERVAL_MS);
    this.pruner.unref?.();
    manager.onSessionEvent((e) => {
      if (e.kind === "opened") this.opened(e.session);
      else if (e.kind === "closed" || e.kind === "exited") this.ended(e.session, e.kind);
    });
  }

  /** Before input is typed: throws (and nothing is typed) when the trail cannot record it. */
  typed(session: Session, who: string, via: "exec" | "send", text: string | undefined, keys?: string[]): void {
    const entry: AuditEntry = { event: "typed", who, via };
    if (text !== undefined) entry.text = session.redact(text);
    if (keys && keys.length > 0) entry.keys = keys;
    this.mustRecord(session.id, entry, "nothing was typed");
  }

  /** Before a secret is typed: throws (and nothing is typed) when the trail cannot record it. */
  secret(session: Session, who: string): void {
    const entry = { event: "secret", who, text: "[secret typed by the human via term_secret]" };
    this.mustRecord(session.id, entry, "nothing was typed");
  }

  /**
   * Before term_open starts a program of the caller's choosing (`command`, with `args`): it runs
   * as surely as a typed line, so it is recorded first, and not started when it cannot be.
   */
  starting(session: string, who: string, text: string): void {
    this.mustRecord(session, { event: "typed", who, via: "open", text }, "nothing was started");
  }

  /**
   * An entry for input about to be typed: a trail that silently lost it would no longer tell who
   * did what, so the call fails instead, saying why (a full disk), and types nothing.
   */
  private mustRecord(session: string, entry: AuditEntry, outcome: string): void {
    const failed = this.trail.record(session, entry);
    if (failed === null) return;
    let where = "the audit directory";
    try {
      where = this.trail.directory;
    } catch {
      // The directory itself is what failed: the reason says so.
    }
    throw new AppError(
      "INTERNAL",
      `the audit trail of session '${session}' cannot be written (${failed}): ${outcome}`,
      `Free space where it is written (${where}), or turn the trail off with audit.enabled = false.`,
    );
  }

  guard(session: Session, decision: GuardDecision, who: string): void {
    const { line, findings, outcome } = decision;
    const rules = findings.map((f) => f.rule);
    const reasons = findings.map((f) => f.reason);
    this.trail.record(session.id, { event: "guard", who, outcome, text: session.redact(line), rules, reasons });
  }

  /** The guard's decision on what a session would start with, written before the session exists. */
  guardAtOpen(session: string, decision: GuardDecision, who: string): void {
    const { line, findings, outcome } = decision;
    const [rules, reasons] = [findings.map((f) => f.rule), findings.map((f) => f.reason)];
    this.trail.record(session, { event: "guard", who, outcome, text: line, rules, reasons });
  }

  /** Keystrokes of a human attached to the session, written a line at a time. */
  humanInput(session: Session, data: Uint8Array, via: HumanVia = "attach"): void {
    if (!this.trail.enabled) return;
    const w = this.watched.get(session.id);
    if (!w) return;
    // A line is the typist's who finishes it: one from another place first goes as it is.
    if (w.humanVia !== via) this.flushHuman(w, false);
    w.humanVia = via;
    const text = this.decoder.decode(data, { stream: true });
    // Echo off in canonical mode hides the line even before the program reads it (state running).
    const modes = session.backendHandle.ttyModes();
    if ((modes && !modes.echo && modes.canonical) || session.state() === "password") w.humanHidden = true;
    for (const ch of text) {
      if (ch === "\r" || ch === "\n") this.flushHuman(w, true);
      else if (SIGNAL_KEYS.has(ch)) this.flushHuman(w, false, SIGNAL_KEYS.get(ch));
      else {
        w.human += ch;
        if (w.human.length >= HUMAN_CHUNK_CHARS) this.flushHuman(w, false);
      }
    }
  }

  private flushHuman(w: Watched, enter: boolean, key?: string): void {
    if (w.human === "" && !enter && !key) return;
    const text = w.humanHidden ? HIDDEN_INPUT : w.session.redact(w.human);
    this.trail.record(w.session.id, {
      event: "typed",
      who: HUMAN_WHO[w.humanVia],
      via: w.humanVia,
      text,
      enter,
      ...(key ? { keys: [key] } : {}),
    });
    w.human = "";
    w.humanHidden = false;
  }

  private opened(id: string): void {
    const session = this.manager.get(id);
    const { kind, target, pid, cwd } = session;
    this.trail.record(id, { event: "open", kind, target, pid, cwd });
    const w: Watched = {
      session,
      lastMark: session.lastMarkSeq,
      unsubscribe: () => {},
      human: "",
      humanVia: "attach",
      humanHidden: false,
      inCommand: false,
    };
    w.unsubscribe = session.onChange(() => this.scanMarks(w));
    this.watched.set(id, w);
    if (this.settings.recording) {
      const recording = SessionRecording.begin(this.trail.directory, session, this.settings.recording_max_bytes);
      if (recording) this.recordings.set(id, recording);
    }
  }

  /** Command boundaries the shell reported since the last look. */
  private scanMarks(w: Watched): void {
    if (w.session.lastMarkSeq === w.lastMark) return;
    for (const m of w.session.marksAfter(w.lastMark)) {
      if (m.kind === "start") {
        w.inCommand = true;
        this.trail.record(w.session.id, { event: "command_start", cwd: w.session.cwd });
      } else if (m.kind === "end" && w.inCommand) {
        w.inCommand = false;
        this.trail.record(w.session.id, { event: "command_end", exit_code: m.exitCode, cwd: m.cwd ?? w.session.cwd });
      }
      w.lastMark = m.seq;
    }
  }

  private ended(id: string, kind: "closed" | "exited"): void {
    const w = this.watched.get(id);
    if (!w) return;
    this.scanMarks(w);
    if (w.human !== "") this.flushHuman(w, false);
    const exit = w.session.exit;
    this.trail.record(id, { event: kind, exit_code: exit?.exitCode ?? null, reason: exit?.reason ?? null });
    this.recordings.get(id)?.end();
    this.recordings.delete(id);
    if (kind === "closed") {
      w.unsubscribe();
      this.watched.delete(id);
      this.trail.release(id);
    }
  }

  dispose(): void {
    if (this.pruner) clearInterval(this.pruner);
    for (const w of this.watched.values()) w.unsubscribe();
    for (const r of this.recordings.values()) r.end();
    this.recordings.clear();
    this.trail.releaseAll();
    this.watched.clear();
  }
}
