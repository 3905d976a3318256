/** term_close: a session ended, with its exit code. */
import { z } from "zod";
import { sessionId } from "../fields.ts";

export const closeInput = z.strictObject({
  session: sessionId,
  signal: z
    .enum(["TERM", "KILL", "HUP"])
    .optional()
    .describe("First signal to send (default HUP, like closing a terminal window)."),
});

export const closeOutput = z.object({
  session: z.string(),
  closed: z.literal(true),
  exit_code: z.number().int().nullable(),
});
