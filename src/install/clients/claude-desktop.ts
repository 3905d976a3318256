/**
 * Claude Desktop reads `claude_desktop_config.json` from its app-data directory
 * (`~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows,
 * `$XDG_CONFIG_HOME/Claude` on Linux). It has no per-project config.
 */
import { electronAppData, joinFor } from "./paths.ts";
import type { McpClient } from "./types.ts";

export const claudeDesktop: McpClient = {
  id: "claude-desktop",
  displayName: "Claude Desktop",
  installedMarkers: (machine) => [joinFor(machine, electronAppData(machine), "Claude")],
  configPath: (machine, scope) =>
    scope === "user" ? joinFor(machine, electronAppData(machine), "Claude", "claude_desktop_config.json") : undefined,
  format: {
    kind: "json",
    serversKey: "mcpServers",
    entry: (launch) => ({ command: launch.command, args: launch.args }),
  },
};
