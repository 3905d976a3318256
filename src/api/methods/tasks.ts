/**
 * MCP Tasks as host methods (src/mcp/tasks/host-tasks.ts): started, polled, answered and cancelled where
 * the session lives, so a task outlives the MCP server that started it.
 */
import { z } from "zod";
import { sessionId } from "../fields.ts";

const MAX_TASK_ID_CHARS = 128;
const taskId = z.string().min(1).max(MAX_TASK_ID_CHARS);
/** Routing only: the session the task's call is on (RoutingHost sends it to the host that has it). */
const session = sessionId.optional();

/** The client profile travels with the call, so the host renders the result exactly as the edge would. */
const clientProfileSchema = z.strictObject({
  name: z.string().max(256),
  label: z.string().max(256).nullable(),
  form: z.enum(["text", "structured"]),
  maxResultChars: z.number().int().positive().nullable(),
  // Absent from an MCP server older than the daemon: no known limit.
  maxCallMs: z.number().int().positive().nullable().default(null),
});

export const taskStartInput = z.strictObject({
  session,
  tool: z.string().max(64),
  args: z.record(z.string(), z.unknown()),
  client: clientProfileSchema,
  settings: z.strictObject({
    inlineMs: z.number().int().min(0).max(600_000),
    pollIntervalMs: z.number().int().min(250).max(30_000),
    ttlMs: z.number().int().min(1000).max(86_400_000),
    secretPageTtlMs: z.number().int().min(1000).max(3_600_000).optional(),
  }),
  /** Where term_exec's default session starts, as for exec (the caller's cwd and environment). */
  defaults: z
    .strictObject({ cwd: z.string().min(1).max(4096).optional(), env: z.record(z.string(), z.string()).optional() })
    .optional(),
});
export const taskRefInput = z.strictObject({ session, taskId });
export const taskUpdateInput = z.strictObject({
  session,
  taskId,
  inputResponses: z.record(z.string(), z.unknown()),
});
/** Results are MCP objects (a tool result, a task snapshot) checked at the edge by the client. */
export const taskOutput = z.record(z.string(), z.unknown());
