/**
 * OpenAI Codex CLI: `config.toml` in `$CODEX_HOME` (default `~/.codex`), with one
 * `[mcp_servers.<name>]` table per server. Edited by the TOML table editor, which leaves every
 * other byte of the file alone.
 */
import { joinFor } from "./paths.ts";
import type { InstallEnvironment, McpClient } from "./types.ts";

function codexHome(machine: InstallEnvironment): string {
  return machine.env.CODEX_HOME || joinFor(machine, machine.home, ".codex");
}

export const codex: McpClient = {
  id: "codex",
  displayName: "Codex",
  installedMarkers: (machine) => [codexHome(machine)],
  configPath: (machine, scope) => (scope === "user" ? joinFor(machine, codexHome(machine), "config.toml") : undefined),
  format: { kind: "toml" },
};
