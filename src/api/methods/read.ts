/** term_read: output looked at without typing: new, screen, diff or history. */
import { z } from "zod";
import { sessionId, maxTokens, untilPattern, truncation, cursor, stateEnum, viaEnum } from "../fields.ts";

export const readInput = z.strictObject({
  session: sessionId,
  mode: z
    .enum(["new", "screen", "diff", "history"])
    .default("new")
    .describe(
      "new: output since your last read · screen: the visible screen · diff: only screen rows changed since your " +
        "last screen/diff read · history: scrollback lines by number. On screens, text highlighted only by colour " +
        "(a selection bar, a search match) is marked ⟦so⟧",
    ),
  from: z.number().int().optional().describe("history: first line (1-based; negative counts from the end)."),
  to: z.number().int().optional().describe("history: last line (inclusive; negative counts from the end)."),
  until: untilPattern("Regex awaited in output newer than this call."),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .optional()
    .describe("How long `new` waits for output when there is none yet (default 2000; 0 for screen/history)."),
  raw: z
    .boolean()
    .optional()
    .describe(
      "new/history: the output as the program sent it, escape sequences kept (for debugging terminal output); " +
        "history from/to then number its \\n-separated lines.",
    ),
  max_tokens: maxTokens,
});

export const readOutput = z.object({
  session: z.string(),
  mode: z.enum(["new", "screen", "diff", "history"]),
  output: z.string(),
  state: stateEnum,
  alt_screen: z.boolean(),
  cursor,
  lines_total: z.number().int(),
  dropped: z.number().int(),
  exit_code: z.number().int().nullable(),
  matched: z.string().nullable(),
  via: viaEnum.nullable(),
  truncated: truncation,
});
