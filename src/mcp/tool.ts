/**
 * A tool is one file: its zod input and output schemas (the single definition: JSON Schema for
 * tools/list is generated from them), a description written for the model, the handler, and a
 * compact text rendering of its result (what most models actually read: short, output last).
 */
import type { z } from "zod";
import type { CallContext, SessionHost } from "../api/host.ts";

/** A call's context (reader id, cancellation, elicitation) plus the host that serves it. */
export interface ToolContext extends CallContext {
  host: SessionHost;
}

export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  /**
   * Its wait can outlive the inline window: where the client speaks MCP Tasks, a call may become
   * a task that the host running it keeps (src/mcp/tasks/host-tasks.ts).
   */
  task?: boolean;
  run(args: z.infer<I>, ctx: ToolContext): Promise<z.infer<O>>;
  text(result: z.infer<O>): string;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}
