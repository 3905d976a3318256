/**
 * VS Code: `mcp.json` in the user directory (`Code/User` under Electron's app-data path) or
 * `.vscode/mcp.json` in a workspace. Servers live under `servers` with an explicit `type`. These
 * files are JSONC; the editor keeps their comments.
 */
import { electronAppData, joinFor } from "./paths.ts";
import type { McpClient } from "./types.ts";

export const vscode: McpClient = {
  id: "vscode",
  displayName: "VS Code",
  installedMarkers: (machine) => [joinFor(machine, electronAppData(machine), "Code")],
  configPath: (machine, scope) =>
    scope === "project"
      ? joinFor(machine, machine.cwd, ".vscode", "mcp.json")
      : joinFor(machine, electronAppData(machine), "Code", "User", "mcp.json"),
  format: {
    kind: "json",
    serversKey: "servers",
    entry: (launch) => ({ type: "stdio", command: launch.command, args: launch.args }),
    // VS Code's MCP configuration reference: an "http" server has `url` and optional `headers`.
    httpEntry: (url, headers) => ({ type: "http", url, headers }),
  },
};
