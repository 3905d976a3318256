/**
 * Asking the human through the MCP client (elicitation), e.g. for an SSH passphrase. A leaf
 * module: the tools, the session host, the manager and SSH authentication all name this type,
 * and none of them should have to import another to get it.
 */

/** What the human answered to an elicitation request. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
  /**
   * Set when the client refused without asking anyone (src/mcp/unasked.ts): why we know. The
   * caller then says nobody was asked, not that the human said no.
   */
  unaskedWhy?: string;
}

/** How to ask. */
export interface ElicitOptions {
  /**
   * The answer is a secret (a password, passphrase, token): where the client supports URL-mode
   * elicitation, the human types it on ptyhub's own one-time page instead of into the client's
   * form, so it never passes through the MCP client (src/mcp/secret-page).
   */
  secret?: boolean;
}

/** Asks the human, through the MCP client, to fill in `schema` (MCP elicitation). */
export type Elicit = (
  message: string,
  schema: Record<string, unknown>,
  options?: ElicitOptions,
) => Promise<ElicitResult>;
