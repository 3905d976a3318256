import { z } from "zod";
import { defineTool } from "../tool.ts";
import { sessionId } from "../schemas.ts";

export const termResize = defineTool({
  name: "term_resize",
  title: "Resize a session",
  description: "Change a session's terminal size; the program receives SIGWINCH (full-screen apps redraw).",
  input: z.strictObject({
    session: sessionId,
    cols: z.number().int().min(20).max(500),
    rows: z.number().int().min(5).max(200),
  }),
  output: z.object({ session: z.string(), cols: z.number().int(), rows: z.number().int() }),
  annotations: { idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return ctx.host.resize(args, ctx);
  },
  text(r) {
    return `[${r.session} resized to ${r.cols}x${r.rows}]`;
  },
});
