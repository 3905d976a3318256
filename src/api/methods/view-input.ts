/**
 * The host's half of term_view_input: keys a human typed in the MCP Apps view's take-over, written
 * into the session as they are (no Enter added, no waiting for output: the view shows the screen).
 */
import { z } from "zod";
import { sessionId } from "../fields.ts";

/** The most one call carries: a paste, not a file (as the web view's socket frames). */
const MAX_VIEW_INPUT_CHARS = 64 * 1024;

export const viewInputInput = z.strictObject({
  session: sessionId,
  text: z
    .string()
    .min(1)
    .max(MAX_VIEW_INPUT_CHARS)
    .describe("What the human typed, as the terminal encodes it (Enter is \\r, ctrl+c is \\u0003)."),
});

export const viewInputOutput = z.object({ session: z.string(), sent: z.literal(true) });
