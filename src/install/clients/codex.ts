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

/**
 * Codex starts MCP servers with only HOME, LANG, PATH, SHELL, TERM and TMPDIR (and a few more);
 * `env_vars` forwards these from the user's environment: a PTYHUB_SOCKET override (the same daemon
 * as `ptyhub ls` and `attach`), ptyhub's config and log directories, the ssh-agent for SSH
 * sessions, and the user's name, which programs in sessions expect.
 */
export const CODEX_ENV_VARS = [
  "PTYHUB_SOCKET",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "SSH_AUTH_SOCK",
  "USER",
  "LOGNAME",
];

export const codex: McpClient = {
  id: "codex",
  displayName: "Codex",
  installedMarkers: (machine) => [codexHome(machine)],
  configPath: (machine, scope) => (scope === "user" ? joinFor(machine, codexHome(machine), "config.toml") : undefined),
  format: {
    kind: "toml",
    // Without approval Codex asks before every tool that is not read-only, and `codex exec`
    // (approval "never") refuses them: whether to skip the question is the user's call (--approve-tools).
    extras: (choices) => ({
      env_vars: CODEX_ENV_VARS,
      ...(choices.approveTools ? { default_tools_approval_mode: "approve" } : {}),
    }),
  },
};
