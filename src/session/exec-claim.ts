/**
 * Whether a session can take a term_exec now: one at a time, and only at the prompt. The claim is
 * held until its release runs; a session that cannot take one says why (SESSION_BUSY) and what to
 * do instead.
 */
import { AppError } from "../api/errors.ts";
import type { SessionState } from "../terminal/classify.ts";
import type { Phase } from "./marks.ts";

export class ExecClaim {
  /** The client whose term_exec holds the session, if one does. */
  private owner: string | null = null;

  get held(): boolean {
    return this.owner !== null;
  }

  /** Takes the session for `clientId`'s term_exec; the returned release counts once. */
  claim(clientId: string, id: string, phase: Phase, state: () => SessionState): () => void {
    if (this.owner !== null || phase === "running") throw busyError(id, phase === "running" ? state() : "running");
    if (phase === "continuation") throw continuationBusyError(id);
    this.owner = clientId;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.owner = null;
    };
  }
}

/** The states in which a running command waits for the user, as a SESSION_BUSY message names them. */
const WAITING_STATES: Partial<Record<SessionState, string>> = {
  password: "a password prompt",
  confirm: "a yes/no question",
  pager: "a pager",
  reading: "the terminal for input",
};

/** A command still runs; `state` says whether it waits for the user, and at what. */
function busyError(id: string, state: SessionState): AppError {
  const waiting = WAITING_STATES[state];
  if (!waiting) {
    return new AppError(
      "SESSION_BUSY",
      `session '${id}' is still running a command`,
      'Follow it with term_read, interrupt it with term_send keys:["ctrl+c"], or use another session.',
    );
  }
  return new AppError(
    "SESSION_BUSY",
    `session '${id}' is still running a command, which waits at ${waiting} (state ${state})`,
    "Answer it with term_send (a password with term_secret, never in arguments), interrupt it with " +
      'term_send keys:["ctrl+c"], or use another session.',
  );
}

/** The shell waits for the rest of a command line: a command typed now would join it. */
function continuationBusyError(id: string): AppError {
  return new AppError(
    "SESSION_BUSY",
    `session '${id}' waits for the rest of an unfinished command line (continuation prompt)`,
    "Send the rest with term_send text (e.g. a closing quote, `fi`, `done`), " +
      'or cancel the line with term_send keys:["ctrl+c"].',
  );
}
