/**
 * Asking the human through the MCP client (elicitation), e.g. for an SSH passphrase. A leaf
 * module: the tools, the session host, the manager and SSH authentication all name this type,
 * and none of them should have to import another to get it.
 */

/** What the human answered to an elicitation request. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** Asks the human, through the MCP client, to fill in `schema` (MCP elicitation). */
export type Elicit = (message: string, schema: Record<string, unknown>) => Promise<ElicitResult>;
