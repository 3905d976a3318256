/**
 * A task's timing: kept apart from the task machinery (tool-tasks.ts, which loads the session
 * stack), since the MCP edge needs only this. Whether a tool may run as a task at all is its
 * definition's word (ToolDef.task, src/mcp/tool.ts).
 */

export interface TaskSettings {
  /** How long a call may take and still be answered inline. */
  inlineMs: number;
  /** What the client is told to poll at (Claude Code clamps it to 250 ms–30 s). */
  pollIntervalMs: number;
  /** How long an ended (or waiting) task is kept after its last change. */
  ttlMs: number;
  /**
   * Set when the request's client offers URL-mode elicitation and shares this machine's loopback:
   * a password prompt is then asked on ptyhub's one-time page (src/mcp/secret-page), which lives
   * this long, instead of in a form.
   */
  secretPageTtlMs?: number;
}
