/** term_close: a session ended, with its exit code. */
import { z } from "zod";
import { sessionId } from "../fields.ts";

/** The signals term_close sends: the first one asked for, then TERM, then KILL. */
export const CLOSE_SIGNALS = ["TERM", "KILL", "HUP"] as const;

export const closeInput = z.strictObject({
  session: sessionId,
  signal: z
    .enum(CLOSE_SIGNALS)
    .optional()
    .describe("First signal to send (default HUP, like closing a terminal window)."),
});

export const closeOutput = z.object({
  session: z.string(),
  closed: z.literal(true),
  exit_code: z.number().int().nullable(),
  /**
   * The signal of term_close's that ended the program (its exit_code is then 128 + its number),
   * or null: it exited by itself, or had already ended. Optional: a daemon of an earlier version
   * does not send it.
   */
  signal: z.enum(CLOSE_SIGNALS).nullable().optional(),
});
