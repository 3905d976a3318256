/**
 * A tool is one file: its zod input and output schemas (the single definition: JSON Schema for
 * tools/list is generated from them), a description written for the model, the handler, and a
 * compact text rendering of its result (what most models actually read: short, output last).
 */
import type { z } from "zod";
import type { CallContext, SessionHost } from "../api/host.ts";

/** The guard's questions waiting for a human, as the MCP Apps view answers them (src/web/questions.ts). */
export interface ViewQuestions {
  /** The questions this client's calls asked; looking counts as a human watching for them. */
  listFor(client: string): { id: string; message: string; asked_at: string }[];
  /** The human's answer to one of this client's questions; false when it is not (or no longer) waiting. */
  answerFor(client: string, id: string, allow: boolean): boolean;
}

/**
 * What the MCP Apps view's own tools need (app-view.ts): present only for a client that declared
 * the extension, so only such a client can call them.
 */
export interface AppViewContext {
  /** Where the guard's questions wait for the human; null where nobody keeps them (stdio). */
  questions: ViewQuestions | null;
}

/** A call's context (reader id, cancellation, elicitation) plus the host that serves it. */
export interface ToolContext extends CallContext {
  host: SessionHost;
  appView?: AppViewContext;
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
  /**
   * Called by ptyhub's MCP Apps view through the host, never by the model: listed with
   * `_meta.ui.visibility: ["app"]` and only to clients that declared MCP Apps (app-view.ts).
   */
  appOnly?: boolean;
  run(args: z.infer<I>, ctx: ToolContext): Promise<z.infer<O>>;
  text(result: z.infer<O>): string;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}
