/**
 * What a session id may be (SPEC: [A-Za-z0-9._-]{1,64}). A leaf module, so that code routing calls
 * by session (src/daemon/routing.ts) can check an id without loading the session stack.
 */
import { AppError } from "../errors.ts";

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
