/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, issue 38): for a client that declares it,
 * term_open and term_exec name ptyhub's terminal view (src/web/mcp-app.ts) in their `_meta.ui`, and
 * the view is a resource it can read; the host shows it beside their results, and the view calls
 * its own app-only tools (term_view_*, app-visibility.ts) through the host. A client that does not
 * declare the extension gets the same tool listing and resources as before.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { MCP_APP_MIME, TERMINAL_VIEW_URI, terminalViewHtml } from "../web/mcp-app.ts";
import { isAppOnly } from "./app-visibility.ts";

/** The extension's id in the client's `capabilities.extensions` (ext-apps' EXTENSION_ID). */
export const MCP_APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** The tools whose results the view is shown beside: each result names its session. */
const VIEWED_TOOLS = new Set(["term_open", "term_exec"]);

/** Whether the client renders MCP Apps views of our kind (its capabilities, in either protocol era). */
export function rendersApps(caps: ClientCapabilities | Record<string, unknown> | undefined): boolean {
  const extensions = caps?.extensions as Record<string, { mimeTypes?: unknown } | undefined> | undefined;
  const ui = extensions?.[MCP_APPS_EXTENSION];
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(MCP_APP_MIME);
}

/**
 * The listing as this client gets it: for one that renders MCP Apps, the view named on the tools it
 * goes with, and the view's own app-only tools (which its host keeps from the model); for any
 * other, neither.
 */
export function toolsForAudience<T extends { name: string; _meta?: Record<string, unknown> }>(
  tools: T[],
  apps: boolean,
): T[] {
  if (!apps) return tools.filter((t) => !isAppOnly(t));
  return tools.map((t) =>
    VIEWED_TOOLS.has(t.name) ? { ...t, _meta: { ...t._meta, ui: { resourceUri: TERMINAL_VIEW_URI } } } : t,
  );
}

/** The view as a resources/list entry. */
export const TERMINAL_VIEW_RESOURCE = {
  uri: TERMINAL_VIEW_URI,
  name: "terminal view",
  title: "Live view of a ptyhub terminal session",
  mimeType: MCP_APP_MIME,
};

/** The view's resources/read answer, or null for another URI. */
export function readTerminalView(uri: string) {
  if (uri !== TERMINAL_VIEW_URI) return null;
  return { contents: [{ uri, mimeType: MCP_APP_MIME, text: terminalViewHtml() }] };
}
