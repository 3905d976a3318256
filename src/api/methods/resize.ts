/** term_resize: a session's terminal size. */
import { z } from "zod";
import { sessionId } from "../fields.ts";

export const resizeInput = z.strictObject({
  session: sessionId,
  cols: z.number().int().min(20).max(500),
  rows: z.number().int().min(5).max(200),
});

export const resizeOutput = z.object({ session: z.string(), cols: z.number().int(), rows: z.number().int() });
