/**
 * A tool is one file: its zod input and output schemas (the single definition: JSON Schema for
 * tools/list is generated from them), a description written for the model, the handler, and a
 * compact text rendering of its result (what most models actually read: short, output last).
 */
import type { z } from "zod";
import type { SessionHost } from "../session/host.ts";

export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

export interface ToolContext {
  host: SessionHost;
  clientId: string;
  signal?: AbortSignal;
  /** Asks the human through MCP elicitation; undefined when the client cannot. */
  elicit?: (message: string, schema: Record<string, unknown>) => Promise<ElicitResult>;
}

export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  run(args: z.infer<I>, ctx: ToolContext): Promise<z.infer<O>>;
  text(result: z.infer<O>): string;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}
