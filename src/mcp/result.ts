/**
 * The edge where results and errors become MCP tool results. Errors: isError, text
 * "CODE: message" plus a hint, and structuredContent.error = { code, message, hint, retryable }.
 * In the text form (clients whose model reads structuredContent as JSON: see client-profile.ts)
 * a result is its text rendering alone, which carries the same facts in far fewer tokens.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toAppError } from "../api/errors.ts";
import type { ResultForm } from "./client-profile.ts";

/** Fields holding program output: placed last, so a reader meets the short facts first. */
const OUTPUT_FIELDS = ["output", "screen"];

/** The same fields with the output ones moved to the end (key order is what a JSON reader sees). */
export function outputLast(structured: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(structured)) if (!OUTPUT_FIELDS.includes(k)) out[k] = v;
  for (const k of OUTPUT_FIELDS) if (k in structured) out[k] = structured[k];
  return out;
}

export function okResult(
  structured: Record<string, unknown>,
  text: string,
  form: ResultForm = "structured",
): CallToolResult {
  const content = [{ type: "text" as const, text }];
  return form === "text" ? { content } : { content, structuredContent: outputLast(structured) };
}

export function errorResult(err: unknown, form: ResultForm = "structured"): CallToolResult {
  const payload = toAppError(err).toPayload();
  const text = `${payload.code}: ${payload.message}${payload.hint ? `\nhint: ${payload.hint}` : ""}`;
  const content = [{ type: "text" as const, text }];
  if (form === "text") return { isError: true, content };
  return { isError: true, content, structuredContent: { error: payload } };
}
