/** term_send: text and keys typed, and what the program answered. */
import { z } from "zod";
import {
  sessionId,
  maxTokens,
  untilPattern,
  truncation,
  cursor,
  screenMode,
  stateEnum,
  hint,
  jobNotices,
  viaEnum,
} from "../fields.ts";

export const sendInput = z.strictObject({
  session: sessionId,
  text: z
    .string()
    .max(100_000)
    .optional()
    .describe("Text typed literally (no escape decoding); multi-line text is pasted as one unit."),
  enter: z.boolean().optional().describe("Press Enter after `text` (default true when text is given)."),
  keys: z
    .array(z.string().max(32))
    .max(256)
    .optional()
    .describe(
      "Named keys sent after text/Enter: ctrl+c, ctrl+d, escape, tab, up, down, left, right, home, end, pageup, " +
        "pagedown, backspace, delete, f1–f12, alt+x, shift+tab (C-c and ^C also work); any modifier on any key " +
        "(shift+f1, ctrl+shift+up).",
    ),
  until: untilPattern(
    "Regex to wait for in output that appears after this call (the echo of your input never matches).",
  ),
  wait_ms: z.number().int().min(0).max(600_000).default(5000).describe("Upper bound on the wait."),
  max_tokens: maxTokens,
});

export const sendOutput = z.object({
  session: z.string(),
  output: z.string(),
  screen: z
    .string()
    .nullable()
    .describe("A full-screen program's screen: the trimmed rendering, or only the rows changed since you last saw it."),
  screen_mode: screenMode.nullable(),
  state: stateEnum,
  matched: z.string().nullable(),
  via: viaEnum,
  exit_code: z.number().int().nullable(),
  alt_screen: z.boolean(),
  cursor,
  truncated: truncation,
  hint,
  job_notices: jobNotices,
});
