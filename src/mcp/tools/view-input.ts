/**
 * The MCP Apps view's take-over (app-only, app-visibility.ts): what the human types in the view
 * goes into the session as theirs: the audit trail names "human (MCP App)". The guard judges it as
 * it judges term_send, since ptyhub cannot tell the view's calls from the model's (docs/web-view.md).
 */
import { defineTool } from "../tool.ts";
import { viewInputInput, viewInputOutput } from "../../api/methods/view-input.ts";

export const termViewInput = defineTool({
  name: "term_view_input",
  title: "Type as the human (terminal view)",
  description:
    "For ptyhub's terminal view only (MCP Apps, app-only): the keys the human types in its take-over, written into " +
    "the session as they are and recorded as the human's.",
  input: viewInputInput,
  output: viewInputOutput,
  annotations: { destructiveHint: true, openWorldHint: true },
  appOnly: true,
  async run(args, ctx) {
    return ctx.host.call("viewInput", args, ctx);
  },
  text(r) {
    return `[typed into ${r.session} as the human]`;
  },
});
