/**
 * One line of `ptyhub doctor`: how a check went (ok, warn, fail), what it is about, what was found,
 * and what to do about it. Every check group returns a list of these.
 */

export type Status = "ok" | "warn" | "fail";

export interface Finding {
  /** The check group, e.g. "pty", "shells", "daemon". */
  group: string;
  status: Status;
  /** What the line is about: a shell, a socket, a client, a file. */
  subject: string;
  /** What was found. */
  detail: string;
  /** What to do about it; null when there is nothing to do. */
  fix: string | null;
}

/** The three ways a group's line can go, with the group filled in. */
export interface FindingMaker {
  ok(subject: string, detail: string): Finding;
  warn(subject: string, detail: string, fix: string): Finding;
  fail(subject: string, detail: string, fix: string): Finding;
}

export function findingsOf(group: string): FindingMaker {
  return {
    ok: (subject, detail) => ({ group, status: "ok", subject, detail, fix: null }),
    warn: (subject, detail, fix) => ({ group, status: "warn", subject, detail, fix }),
    fail: (subject, detail, fix) => ({ group, status: "fail", subject, detail, fix }),
  };
}

/** An error as one line of text, for a finding's detail. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
