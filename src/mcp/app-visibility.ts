/**
 * MCP Apps tool visibility (SEP-1865, "Visibility"): a tool whose `_meta.ui.visibility` is
 * `["app"]` is callable by a view through its host and hidden from the model; the host MUST leave
 * it out of the agent's tool list and MUST refuse a view's call to a tool without "app". ptyhub's
 * terminal view has such tools (term_view_*). A client that did not declare the extension is not
 * told of them at all, and its calls to them are refused (call-tool.ts).
 */
import { AppError } from "../api/errors.ts";

/** The `_meta` of a tool only the view calls. */
export const APP_ONLY_META = { ui: { visibility: ["app"] } } as const;

/** Whether a listed tool is for views only (its visibility leaves out the model). */
export function isAppOnly(tool: { _meta?: Record<string, unknown> }): boolean {
  const ui = tool._meta?.ui as { visibility?: unknown } | undefined;
  return Array.isArray(ui?.visibility) && !ui.visibility.includes("model");
}

/** The refusal of an app-only tool called by a client that does not render MCP Apps. */
export function appOnlyRefused(name: string): AppError {
  return new AppError(
    "INVALID_ARGUMENT",
    `${name} is called by ptyhub's MCP Apps terminal view only`,
    "A host that renders MCP Apps (declaring the io.modelcontextprotocol/ui extension) calls it for the human " +
      "watching the view; to type into a session yourself, use term_send.",
  );
}
