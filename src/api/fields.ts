/**
 * Fields that several host methods share: session ids, bounds, output budgets, the states and ways
 * a wait ends. The bottom of the contract: zod only, nothing of ptyhub's above it.
 */
import { z } from "zod";

/** One sentence for tool descriptions and hints, so every place states the same syntax. */
export const PATTERN_SYNTAX =
  "RE2 syntax (linear-time): JavaScript-like, without lookaround or backreferences; " +
  "^ and $ match at line ends; (?i) ignores case.";

/** Longest pattern accepted: enough for any realistic prompt or marker, small enough to compile fast. */
export const MAX_PATTERN_CHARS = 1000;

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

/** The shell's notices of background jobs that ended meanwhile (src/terminal/job-notices.ts). */
export const jobNotices = z
  .array(z.string())
  .optional()
  .describe("The shell's notices of background jobs that ended meanwhile ([1]+ Done …): not this command's output.");

export const viaEnum = z.enum(["exit", "shell", "marker", "until", "tty", "prompt", "settle", "timeout"]);

/**
 * Where a human types into a session from: `ptyhub attach`, the web view's take-over, or the MCP
 * Apps view's take-over (its app-only tool term_view_input, docs/web-view.md).
 */
export const HUMAN_VIAS = ["attach", "web", "app"] as const;
export type HumanVia = (typeof HUMAN_VIAS)[number];

/**
 * Text with no NUL byte: an argv, a path or a line typed at a shell cannot carry one (the kernel
 * ends a string there, a shell drops it), so it is refused rather than cut short or lost.
 */
export const NO_NUL = /^[^\0]*$/;
export const NO_NUL_MESSAGE = "must not contain a NUL byte (\\0): a command line, argv or path cannot carry one";
