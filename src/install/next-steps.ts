/**
 * What to tell the user after ptyhub's entry changed: what the client will show next, in its own
 * words, rather than a generic "restart" (Claude Code lists a new project server as pending
 * approval; Codex asks before tools unless approval was chosen).
 */
import type { EditAction } from "./config-edit.ts";
import type { InstallChoices, Scope } from "./clients/types.ts";

export function nextSteps(
  clientId: string,
  displayName: string,
  scope: Scope,
  action: EditAction,
  choices: InstallChoices,
): string[] {
  if (action === "remove") return [`${displayName}: restart it (or reload its MCP servers) to drop ptyhub.`];
  if (clientId === "claude-code" && scope === "project") {
    return [
      "Claude Code: a project's MCP servers need your approval: the next time you start it in this directory it " +
        "shows ptyhub as pending approval; approve it there (or later in /mcp).",
    ];
  }
  if (clientId === "claude-code") return ["Claude Code: start a new session (or run /mcp) to load ptyhub."];
  if (clientId === "codex") {
    return choices.approveTools
      ? [
          "Codex: ptyhub loads with the next session, and its tools run without asking " +
            '(default_tools_approval_mode = "approve" in its table; delete that line to be asked again).',
        ]
      : [
          "Codex: ptyhub loads with the next session. Codex asks before each ptyhub tool that can change something, " +
            'and `codex exec` (approval "never") refuses those tools instead of asking.',
          "To let ptyhub's tools run without asking: ptyhub install codex --approve-tools",
        ];
  }
  return [`${displayName}: restart it (or reload its MCP servers) to pick up the change.`];
}
