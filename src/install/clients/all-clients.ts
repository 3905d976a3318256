/** Every client `ptyhub install` knows, in the order it reports them. */
import { claudeCode } from "./claude-code.ts";
import { claudeDesktop } from "./claude-desktop.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { vscode } from "./vscode.ts";
import { windsurf } from "./windsurf.ts";
import type { McpClient } from "./types.ts";

export const CLIENTS: readonly McpClient[] = [claudeCode, claudeDesktop, cursor, vscode, windsurf, codex];

export function findClient(id: string): McpClient | undefined {
  return CLIENTS.find((c) => c.id === id);
}
