/**
 * Typed errors with stable codes. Code deep inside throws AppError; only the MCP edge turns it
 * into a tool result (`isError`, `CODE: message`, hint, structuredContent.error).
 */
import { clip } from "../util/quote.ts";

export const ERROR_CODES = [
  "INVALID_ARGUMENT",
  "INVALID_REGEX",
  "SESSION_NOT_FOUND",
  "SESSION_EXISTS",
  "SESSION_LIMIT",
  "SESSION_BUSY",
  "SESSION_EXITED",
  "SPAWN_FAILED",
  "CWD_NOT_FOUND",
  "SSH_CONNECT_FAILED",
  "SSH_AUTH_FAILED",
  "SSH_HOST_KEY_UNKNOWN",
  "SSH_HOST_KEY_MISMATCH",
  "SERIAL_OPEN_FAILED",
  "CONTAINER_UNAVAILABLE",
  "DAEMON_UNAVAILABLE",
  "ELICITATION_UNSUPPORTED",
  "BLOCKED_BY_GUARD",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Bound on an error's message and hint. Messages quote input through util/quote.ts; this is the
 * backstop for anything that did not (a thrown library error echoing a huge argument, say).
 */
export const MAX_ERROR_TEXT_CHARS = 2000;

/** Codes a client may simply retry (the condition is transient). */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(["SESSION_BUSY", "DAEMON_UNAVAILABLE", "SSH_CONNECT_FAILED"]);

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  hint: string;
  retryable: boolean;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, hint = "", retryable?: boolean) {
    super(clip(message, MAX_ERROR_TEXT_CHARS));
    this.name = "AppError";
    this.code = code;
    this.hint = clip(hint, MAX_ERROR_TEXT_CHARS);
    this.retryable = retryable ?? RETRYABLE.has(code);
  }

  toPayload(): ErrorPayload {
    return { code: this.code, message: this.message, hint: this.hint, retryable: this.retryable };
  }

  static fromPayload(p: ErrorPayload): AppError {
    return new AppError(p.code, p.message, p.hint, p.retryable);
  }
}

/** Normalizes anything thrown into an AppError; unknown failures become INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AppError(
    "INTERNAL",
    message,
    "This is a bug in ptyhub; the server is still running. Retry, or report it.",
  );
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/** A call its caller cancelled: both a session's wait and the daemon client's pending call end so. */
export class CancelledError extends AppError {
  constructor() {
    super("INVALID_ARGUMENT", "the request was cancelled", "Nothing was undone: the session keeps running.");
    this.name = "CancelledError";
  }
}
