import { z } from "zod";
import { defineTool } from "../tool.ts";
import { sessionId } from "../schemas.ts";

export const termClose = defineTool({
  name: "term_close",
  title: "Close a session",
  description:
    "End a session and everything it started (the whole process group, background jobs too): the signal first " +
    "(default HUP), then TERM, then KILL. Closing an already closed session succeeds.",
  input: z.strictObject({
    session: sessionId,
    signal: z
      .enum(["TERM", "KILL", "HUP"])
      .optional()
      .describe("First signal to send (default HUP, like closing a terminal window)."),
  }),
  output: z.object({ session: z.string(), closed: z.literal(true), exit_code: z.number().int().nullable() }),
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return ctx.host.close(args, ctx);
  },
  text(r) {
    return `[closed ${r.session}${r.exit_code !== null ? ` · exit ${r.exit_code}` : ""}]`;
  },
});
