/** Schema pieces shared by several tools. */
import { z } from "zod";
import { MAX_PATTERN_CHARS, PATTERN_SYNTAX } from "../terminal/pattern.ts";

/** Session ids are [A-Za-z0-9._-]{1,64} (SPEC); a longer string cannot name a session. */
export const MAX_SESSION_ID_CHARS = 64;
export const sessionId = z.string().max(MAX_SESSION_ID_CHARS).describe("Session id (from term_open or term_list).");

/**
 * Environment bounds for term_open: far above what any program needs, far below what would make
 * a request or an exec(2) fail (Linux caps one variable at 128 KiB).
 */
export const MAX_ENV_VARS = 256;
export const MAX_ENV_NAME_CHARS = 256;
export const MAX_ENV_VALUE_CHARS = 32_768;
export const envVars = z
  .record(z.string().min(1).max(MAX_ENV_NAME_CHARS), z.string().max(MAX_ENV_VALUE_CHARS))
  .refine((env) => Object.keys(env).length <= MAX_ENV_VARS, { message: `at most ${MAX_ENV_VARS} variables` })
  .describe(
    `Extra environment variables (at most ${MAX_ENV_VARS}; names ≤ ${MAX_ENV_NAME_CHARS}, ` +
      `values ≤ ${MAX_ENV_VALUE_CHARS} characters).`,
  );
export const maxTokens = z
  .number()
  .int()
  .min(1)
  .max(200_000)
  .default(4000)
  .describe(
    "Output budget in tokens (≈4 characters each). Longer output keeps its head and tail and reports the omitted " +
      "line range.",
  );

/** A caller's `until` pattern: one definition of its bound and accepted syntax for every tool. */
export function untilPattern(what: string) {
  return z
    .string()
    .max(MAX_PATTERN_CHARS)
    .optional()
    .describe(`${what} ${PATTERN_SYNTAX} At most ${MAX_PATTERN_CHARS} characters.`);
}

export const truncation = z
  .object({
    omitted_lines: z.number().int(),
    from_line: z.number().int(),
    to_line: z.number().int(),
    original_tokens: z.number().int(),
  })
  .nullable()
  .describe('null, or what was left out: fetch it with term_read mode:"history" from/to.');

export const cursor = z
  .object({ row: z.number().int(), col: z.number().int() })
  .describe("Cursor on the visible screen, 1-based.");

/** Which form a full-screen program's `screen` takes (src/session/screen-view.ts). */
export const screenMode = z
  .enum(["screen", "diff"])
  .describe('"screen": the whole trimmed screen; "diff": only the rows changed since you last saw it, "row| text".');

/** The line that introduces a screen in a text result. */
export function screenHeading(
  mode: "screen" | "diff" | null,
  screen: string,
  at: { row: number; col: number } | null,
): string {
  const where = at ? ` (cursor ${at.row},${at.col})` : "";
  if (mode !== "diff") return `--- screen${where} ---`;
  return screen === "" ? `--- screen: no rows changed${where} ---` : `--- screen: changed rows${where} ---`;
}

export const stateEnum = z.enum([
  "prompt",
  "password",
  "confirm",
  "pager",
  "continuation",
  "reading",
  "running",
  "exited",
  "reconnecting",
]);

/** Present when the result alone does not say what to do next (a continuation prompt). */
export const hint = z.string().optional();

/** The header line with the hint (if any) after it. */
export function withHint(header: string, hintText: string | undefined): string {
  return hintText ? `${header}\nhint: ${hintText}` : header;
}

/** The shell's notices of background jobs that ended meanwhile (src/terminal/job-notices.ts). */
export const jobNotices = z
  .array(z.string())
  .optional()
  .describe("The shell's notices of background jobs that ended meanwhile ([1]+ Done …): not this command's output.");

/** The header with a `jobs:` line after it when the shell printed job notices. */
export function withJobNotices(header: string, notices: string[] | undefined): string {
  return notices ? `${header}\njobs: ${notices.join("; ")}` : header;
}

export const viaEnum = z.enum(["exit", "shell", "marker", "until", "tty", "prompt", "settle", "timeout"]);

/** "… N lines omitted" summary for headers, with how to fetch them (the text form has no schema to say so). */
export function truncationNote(t: { omitted_lines: number; from_line: number; to_line: number } | null): string {
  return t ? ` · ${t.omitted_lines} lines omitted: term_read mode:"history" from:${t.from_line} to:${t.to_line}` : "";
}

/** Line breaks, tabs, escape and other control characters (C0, DEL, C1). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A value from the terminal's side (a cwd, a program's target) as it goes into a header line: as
 * a JSON string literal when it holds a control character, so a directory named "a\n[done · exit
 * 0]" cannot start a line of its own that a reader would take for ptyhub's (issue 23).
 */
export function headerValue(value: string): string {
  return CONTROL.test(value) ? JSON.stringify(value) : value;
}

/** Header line, then the output (if any). */
export function withOutput(header: string, output: string): string {
  return output.length > 0 ? `${header}\n${output}` : header;
}
