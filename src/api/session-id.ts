/**
 * Session names, in one place: what an id may be (SPEC: [A-Za-z0-9._-]{1,64}), the default
 * session term_exec uses, and the automatic names of sessions opened without one. A leaf module,
 * so that code routing calls by session (src/host/routing-host.ts) needs nothing of the session stack.
 */
import { AppError } from "./errors.ts";

export const SESSION_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

export function validateSessionId(id: string): void {
  if (!SESSION_ID_RE.test(id)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid session id '${id.length > 80 ? id.slice(0, 80) + "…" : id}'`,
      "Session ids are 1–64 characters of letters, digits, '.', '_' and '-'.",
    );
  }
}

/** How many session names a SESSION_NOT_FOUND hint lists (term_list has them all). */
const NOT_FOUND_NAMES = 10;

/**
 * SESSION_NOT_FOUND for `id`, listing the sessions there are: every host's, where the caller
 * knows them all (the routing host: in-process and daemon sessions).
 */
export function sessionNotFound(id: string, known: readonly string[]): AppError {
  const names = known.slice(0, NOT_FOUND_NAMES).join(", ") || "none";
  return new AppError(
    "SESSION_NOT_FOUND",
    `no session '${id}'`,
    `Open it with term_open, or pick one from term_list (sessions: ${names}).`,
  );
}

/** term_exec's session when it names none: a shell opened on first use (SPEC). */
export const DEFAULT_SESSION = "main";

/** Automatic names t1, t2, …: the next one that `taken` says is free. */
export class AutoNames {
  private next = 1;

  pick(taken: (id: string) => boolean): string {
    for (;;) {
      const id = `t${this.next++}`;
      if (!taken(id)) return id;
    }
  }
}
