/** term_exec: one command line run to its end (or the timeout), with its exit code. */
import { z } from "zod";
import {
  MAX_SESSION_ID_CHARS,
  NO_NUL,
  NO_NUL_MESSAGE,
  maxTokens,
  truncation,
  screenMode,
  stateEnum,
  hint,
  jobNotices,
} from "../fields.ts";

export const execInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .regex(NO_NUL, NO_NUL_MESSAGE)
    .describe("One shell command line, typed at the session's prompt (multi-line scripts are run as one command)."),
  session: z
    .string()
    .max(MAX_SESSION_ID_CHARS)
    .optional()
    .describe("A shell session; default: the shell session `main`, created on first use."),
  timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(30_000)
    .describe('How long to wait. After it the command keeps running and the result says status "running".'),
  max_tokens: maxTokens,
  reduce: z
    .boolean()
    .optional()
    .describe(
      "Rewrite known noisy output (git status/log/diff, grep/rg, test runs, package installs, builds) into " +
        "fewer tokens, keeping every fact; the header says what was dropped. Default: only output that " +
        "max_tokens would otherwise cut is reduced, instead of cut (the `reduce` setting on: always); " +
        "false: never.",
    ),
});

export const execOutput = z.object({
  session: z.string(),
  status: z.enum(["done", "running", "input"]),
  exit_code: z.number().int().nullable(),
  output: z.string(),
  cwd: z.string().nullable(),
  duration_ms: z.number().int(),
  via: z.enum(["shell", "marker", "exit", "tty", "prompt", "timeout"]),
  truncated: truncation,
  state: stateEnum,
  hint,
  job_notices: jobNotices,
  screen: z
    .string()
    .optional()
    .describe("When the command left a full-screen program waiting (vim, less): its screen, as term_send gives it."),
  screen_mode: screenMode.optional(),
  reduced: z
    .string()
    .optional()
    .describe("With `reduce`: which reducer rewrote the output and what it dropped, or why none did."),
});
