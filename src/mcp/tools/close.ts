import { defineTool } from "../tool.ts";
import { closeInput, closeOutput } from "../../api/methods/close.ts";

export const termClose = defineTool({
  name: "term_close",
  title: "Close a session",
  description:
    "End a session and everything it started (the whole process group, background jobs too): the signal first " +
    "(default HUP), then TERM, then KILL. Closing an already closed session succeeds.",
  input: closeInput,
  output: closeOutput,
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return ctx.host.call("close", args, ctx);
  },
  text(r) {
    // 129 alone reads like a failure: say when it was the hang-up (or TERM, KILL) term_close sent.
    const cause = r.signal ? ` (SIG${r.signal} sent by term_close)` : "";
    return `[closed ${r.session}${r.exit_code !== null ? ` · exit ${r.exit_code}${cause}` : ""}]`;
  },
});
