import { defineTool } from "../tool.ts";
import { resizeInput, resizeOutput } from "../../api/methods/resize.ts";

export const termResize = defineTool({
  name: "term_resize",
  title: "Resize a session",
  description: "Change a session's terminal size; the program receives SIGWINCH (full-screen apps redraw).",
  input: resizeInput,
  output: resizeOutput,
  annotations: { idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return ctx.host.call("resize", args, ctx);
  },
  text(r) {
    return `[${r.session} resized to ${r.cols}x${r.rows}]`;
  },
});
