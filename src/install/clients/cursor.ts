/** Cursor: `~/.cursor/mcp.json`, or `.cursor/mcp.json` in a project, under `mcpServers`. */
import { joinFor } from "./paths.ts";
import type { McpClient } from "./types.ts";

export const cursor: McpClient = {
  id: "cursor",
  displayName: "Cursor",
  installedMarkers: (machine) => [joinFor(machine, machine.home, ".cursor")],
  configPath: (machine, scope) =>
    joinFor(machine, scope === "project" ? machine.cwd : machine.home, ".cursor", "mcp.json"),
  format: {
    kind: "json",
    serversKey: "mcpServers",
    entry: (launch) => ({ command: launch.command, args: launch.args }),
    // Cursor's remote servers: `url` (Streamable HTTP) with optional `headers`.
    httpEntry: (url, headers) => ({ url, headers }),
  },
};
