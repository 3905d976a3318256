/** Schema pieces shared by several tools. */
import { z } from "zod";

export const sessionId = z.string().describe("Session id (from term_open or term_list).");
export const maxTokens = z
  .number()
  .int()
  .min(1)
  .max(200_000)
  .default(4000)
  .describe("Output budget in tokens (≈4 characters each). Longer output keeps its head and tail and reports the omitted line range.");

export const truncation = z
  .object({
    omitted_lines: z.number().int(),
    from_line: z.number().int(),
    to_line: z.number().int(),
    original_tokens: z.number().int(),
  })
  .nullable()
  .describe("null, or what was left out: fetch it with term_read mode:\"history\" from/to.");

export const cursor = z.object({ row: z.number().int(), col: z.number().int() }).describe("Cursor on the visible screen, 1-based.");

export const stateEnum = z.enum(["prompt", "password", "confirm", "pager", "running", "exited", "reconnecting"]);

export const viaEnum = z.enum(["exit", "shell", "marker", "until", "prompt", "settle", "timeout"]);

/** "… N lines omitted" summary for headers. */
export function truncationNote(t: { omitted_lines: number; from_line: number; to_line: number } | null): string {
  return t ? ` · ${t.omitted_lines} lines omitted (${t.from_line}–${t.to_line})` : "";
}

/** Header line, then the output (if any). */
export function withOutput(header: string, output: string): string {
  return output.length > 0 ? `${header}\n${output}` : header;
}
