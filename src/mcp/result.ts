/**
 * The edge where results and errors become MCP tool results. Errors: isError, text
 * "CODE: message" plus a hint, and structuredContent.error = { code, message, hint, retryable }.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toAppError } from "../errors.ts";

export function okResult(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

export function errorResult(err: unknown): CallToolResult {
  const e = toAppError(err);
  const payload = e.toPayload();
  return {
    isError: true,
    content: [{ type: "text", text: `${payload.code}: ${payload.message}${payload.hint ? `\nhint: ${payload.hint}` : ""}` }],
    structuredContent: { error: payload },
  };
}
