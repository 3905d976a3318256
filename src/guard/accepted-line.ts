/**
 * The guard's look at what the shell itself is about to run (issue 35, item 2). The key model
 * (line-editor.ts) judges the line ptyhub expects the line editor to hold, but the editor has
 * more keys than any model: transposing, case changes, undo, yanking what an earlier call killed,
 * `insert-comment` with an argument (which submits without a CR), `edit-and-execute-command`,
 * `bind -x` and macros. So the shell reports each command of a line it accepted, before it runs
 * it (bash: a DEBUG trap under `extdebug`; zsh: a DEBUG trap; fish: the whole line, from its
 * Enter binding and fish_preexec; src/terminal/shells/), as a J mark with the nonce, and
 * waits on a private channel (never the terminal's input) for the answer this module sends back;
 * a command refused is skipped and the rest of its line with it.
 *
 * A command with no finding runs. One with findings runs only when the human let it through:
 * confirmed through elicitation when the agent typed it (at the prompt where it was typed), or
 * typed by the human (`ptyhub attach`) at the current prompt. Otherwise it is refused: nobody is
 * asked from here, since the call that typed it may have ended long before.
 */
import type { Session } from "../session/session.ts";
import type { Guard, GuardDecision } from "./guard.ts";
import { storedCommands } from "./stored-commands.ts";

/** The sessions a gate serves, as far as this check needs them. */
export interface SessionSource {
  onSessionEvent(listener: (event: { session: string; kind: string }) => void): () => void;
  get(id: string): Session;
}

/** What was let through at one prompt (the sequence number of its ready mark). */
interface AtPrompt {
  ready: number;
  lines: string[];
}

export class AcceptedLines {
  /** Lines the human confirmed, per session, at the prompt they were typed at. */
  private readonly confirmed = new WeakMap<Session, AtPrompt>();
  /** The prompt at which the human last typed into the session. */
  private readonly humanAt = new WeakMap<Session, number>();
  private readonly unsubscribe: () => void;

  constructor(
    sessions: SessionSource,
    private readonly guard: Guard,
    /** Told about every command refused here (the audit trail). */
    private readonly onRefused: (session: Session, decision: GuardDecision) => void,
  ) {
    this.unsubscribe = sessions.onSessionEvent((event) => {
      if (event.kind !== "opened") return;
      const session = sessions.get(event.session);
      session.questions.on((request) => session.questions.answer(request, this.allowed(session, request.text)));
    });
  }

  /** The human confirmed `line` through elicitation: the shell may run its commands at this prompt. */
  noteConfirmed(session: Session, line: string): void {
    const ready = latestReady(session);
    const entry = this.confirmed.get(session);
    if (entry && entry.ready === ready) entry.lines.push(line);
    else this.confirmed.set(session, { ready, lines: [line] });
  }

  /** A human typed into the session (`ptyhub attach`): what the shell runs from this prompt is theirs. */
  noteHuman(session: Session): void {
    this.humanAt.set(session, latestReady(session));
  }

  dispose(): void {
    this.unsubscribe();
  }

  private allowed(session: Session, text: string): boolean {
    // With the commands the line stores for later (a fish key binding's), which run unasked.
    const findings = [text, ...storedCommands(text)].flatMap((line) => this.guard.judgeAccepted(session, line));
    if (findings.length === 0) return true;
    const ready = latestReady(session);
    if (this.humanAt.get(session) === ready) return true;
    const confirmed = this.confirmed.get(session);
    if (confirmed?.ready === ready && confirmed.lines.some((line) => line.includes(text.trim()))) return true;
    this.onRefused(session, { line: text, findings, outcome: "blocked" });
    return false;
  }
}

/** The sequence number of the session's latest ready mark (its current prompt), 0 before any. */
function latestReady(session: Session): number {
  return (
    session
      .marksAfter(0)
      .filter((m) => m.kind === "ready")
      .pop()?.seq ?? 0
  );
}
