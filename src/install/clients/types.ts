/**
 * What ptyhub needs to know about an MCP client to register itself with it: where its config
 * lives (per user and, where it has one, per project), how to tell it is installed, and the
 * shape of its server entry.
 */
import type { LaunchCommand } from "../config-edit.ts";
import type { TomlServerExtras } from "../toml-servers.ts";

export type Scope = "user" | "project";

/** The machine as the install command sees it; tests pass their own. */
export interface InstallEnvironment {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

export type ConfigFormat =
  /** A JSON object of servers under `serversKey`, one entry per server name. */
  | {
      kind: "json";
      serversKey: string;
      entry(launch: LaunchCommand): Record<string, unknown>;
      /**
       * The entry for `ptyhub serve --http` at `url` with these headers, for clients that
       * document a URL entry with headers; absent for the others.
       */
      httpEntry?(url: string, headers: Record<string, string>): Record<string, unknown>;
      /**
       * Other places in the user config that may hold an entry of ptyhub's, each as the keys from
       * the top level to the object holding `serversKey`: where one is, it is kept launching the
       * same command as the main entry (never created there).
       */
      userScopeCopies?(machine: InstallEnvironment): string[][];
    }
  /** Codex's config.toml: one `[mcp_servers.<name>]` table with `command`, `args` and `extras`. */
  | { kind: "toml"; extras(choices: InstallChoices): TomlServerExtras };

/** What the user chose on the command line that shapes the entry. */
export interface InstallChoices {
  /** --approve-tools: the client runs ptyhub's tools without asking each time. */
  approveTools: boolean;
}

export interface McpClient {
  id: string;
  displayName: string;
  /** Paths whose existence shows the client is installed (or has been run) on this machine. */
  installedMarkers(machine: InstallEnvironment): string[];
  /** The config file for a scope, or undefined when the client has no config for that scope. */
  configPath(machine: InstallEnvironment, scope: Scope): string | undefined;
  format: ConfigFormat;
}
