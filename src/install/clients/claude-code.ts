/**
 * Claude Code keeps user-scoped MCP servers in `~/.claude.json` (inside `$CLAUDE_CONFIG_DIR` when
 * that is set) and project-scoped ones in `.mcp.json` at the project root, both under
 * `mcpServers`. We edit the JSON directly rather than shelling out to the `claude` CLI, so
 * registration works without it on PATH and can be previewed with --dry-run.
 */
import { joinFor } from "./paths.ts";
import type { InstallEnvironment, McpClient } from "./types.ts";

function configDir(machine: InstallEnvironment): string {
  return machine.env.CLAUDE_CONFIG_DIR || machine.home;
}

export const claudeCode: McpClient = {
  id: "claude-code",
  displayName: "Claude Code",
  installedMarkers: (machine) => [
    joinFor(machine, configDir(machine), ".claude.json"),
    joinFor(machine, machine.home, ".claude"),
  ],
  configPath: (machine, scope) =>
    scope === "project"
      ? joinFor(machine, machine.cwd, ".mcp.json")
      : joinFor(machine, configDir(machine), ".claude.json"),
  format: {
    kind: "json",
    serversKey: "mcpServers",
    entry: (launch) => ({ type: "stdio", command: launch.command, args: launch.args }),
    // `claude mcp add --transport http NAME URL --header …` writes this shape.
    httpEntry: (url, headers) => ({ type: "http", url, headers }),
    // `claude mcp add` without -s keeps an entry for the current directory only; next to the user
    // one Claude Code lists both ("Conflicting scopes"). Where it is, it launches the same command.
    userScopeCopies: (machine) => [["projects", machine.cwd]],
  },
};
