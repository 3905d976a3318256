/**
 * The host's half of the MCP Apps view's own tools: term_view_input, keys a human typed in the
 * view's take-over, written into the session as they are (no Enter added, no waiting for output:
 * the view shows the screen); term_view_screen, the screen once it differs from what the view shows.
 */
import { z } from "zod";
import { sessionId } from "../fields.ts";
import { readOutput } from "./read.ts";

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

/** How long a view's screen read waits for a change by default, and at most (within hosts' call timeouts). */
const DEFAULT_VIEW_WAIT_MS = 10_000;
const MAX_VIEW_WAIT_MS = 30_000;

export const viewScreenInput = z.strictObject({
  session: sessionId,
  seen: z
    .string()
    .max(64)
    .optional()
    .describe("The digest of the screen the view shows (from the last answer): the call waits until it differs."),
  wait_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_VIEW_WAIT_MS)
    .default(DEFAULT_VIEW_WAIT_MS)
    .describe("How long to wait for the screen to change before answering with it as it is."),
});

export const viewScreenOutput = readOutput.extend({
  digest: z.string().describe("Of this screen, its cursor and state: pass it back as `seen`."),
});
