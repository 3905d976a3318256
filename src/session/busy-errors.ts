/** Why a session cannot take a command now: the SESSION_BUSY errors, each saying what to do. */
import { AppError } from "../api/errors.ts";
import type { SessionState } from "../terminal/classify.ts";

/** The states in which a running command waits for the user, as a SESSION_BUSY message names them. */
const WAITING_STATES: Partial<Record<SessionState, string>> = {
  password: "a password prompt",
  confirm: "a yes/no question",
  pager: "a pager",
  reading: "the terminal for input",
};

/** A command still runs; `state` says whether it waits for the user, and at what. */
export function busyError(id: string, state: SessionState): AppError {
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
export function continuationBusyError(id: string): AppError {
  return new AppError(
    "SESSION_BUSY",
    `session '${id}' waits for the rest of an unfinished command line (continuation prompt)`,
    "Send the rest with term_send text (e.g. a closing quote, `fi`, `done`), " +
      'or cancel the line with term_send keys:["ctrl+c"].',
  );
}
