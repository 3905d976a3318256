/**
 * The MCP Apps view's screen (app-only, app-visibility.ts): the session's screen once it differs
 * from the one the view shows (src/host/view-screen.ts), so the view waits on one call instead of
 * reading every second. It reads as a reader of its own (the client's reader id plus VIEW_READER),
 * so the screen diff the model last saw stays as it was.
 */
import { viewScreenInput, viewScreenOutput } from "../../api/methods/view-input.ts";
import { defineTool } from "../tool.ts";

/** Added to the client's reader id: the view's reads are not the model's. */
const VIEW_READER = "#mcp-app-view";

export const termViewScreen = defineTool({
  name: "term_view_screen",
  title: "The screen once it changes (terminal view)",
  description:
    "For ptyhub's terminal view only (MCP Apps, app-only): the session's visible screen, state and cursor, once " +
    "they differ from the screen whose digest is `seen` (or wait_ms has passed).",
  input: viewScreenInput,
  output: viewScreenOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  appOnly: true,
  async run(args, ctx) {
    return ctx.host.call("viewScreen", args, { ...ctx, clientId: `${ctx.clientId}${VIEW_READER}` });
  },
  text(r) {
    return `[state ${r.state}]\n${r.output}`;
  },
});
