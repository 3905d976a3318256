/** Windsurf: `~/.codeium/windsurf/mcp_config.json` under `mcpServers`; no per-project config. */
import { joinFor } from "./paths.ts";
import type { McpClient } from "./types.ts";

export const windsurf: McpClient = {
  id: "windsurf",
  displayName: "Windsurf",
  installedMarkers: (machine) => [joinFor(machine, machine.home, ".codeium", "windsurf")],
  configPath: (machine, scope) =>
    scope === "user" ? joinFor(machine, machine.home, ".codeium", "windsurf", "mcp_config.json") : undefined,
  format: {
    kind: "json",
    serversKey: "mcpServers",
    entry: (launch) => ({ command: launch.command, args: launch.args }),
  },
};
