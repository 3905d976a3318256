/**
 * Why a value does not fit a schema, in a few words: the one wording of INVALID_ARGUMENT's details
 * for tool arguments (src/mcp/call-tool.ts), host calls (table.ts) and daemon calls. A leaf, so the
 * MCP edge can use it without loading the host API table at start.
 */
import type { z } from "zod";
import { clip } from "../util/quote.ts";

/** At most this many problems are named: the first ones say enough to fix the call. */
const ISSUES_NAMED = 5;

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, ISSUES_NAMED)
    .map((i) => `${i.path.length > 0 ? clip(i.path.join(".")) : "arguments"}: ${clip(i.message)}`)
    .join("; ");
}
