/**
 * Tasks live where their session lives: each LocalHost (this process's, or the daemon's for
 * persistent sessions) keeps the tasks of the calls it runs, so a task outlives the MCP server
 * that started it, and a new server process (`claude --resume` after a crash) answers tasks/get
 * for the same id by asking the daemon. These are the host API methods (src/host-api.ts) that
 * start, poll, answer and cancel them; the MCP edge only routes and wraps them.
 *
 * Who may see a task: whoever holds its id. Ids are random UUIDs (122 bits) handed only to the
 * client that made the call, there is no tasks/list, and the daemon serves only its own user's
 * socket; a resumed client polls with the ids it kept, from a new process whose pid, and so client
 * label, differ, so the label cannot be the key.
 */
import { z } from "zod";
import type { CallContext, LocalHost } from "../../session/host.ts";
import { checkToolCall, toolError } from "../call-tool.ts";
import type { ClientProfile } from "../client-profile.ts";
import { ToolTasks } from "./tool-tasks.ts";
import { TASK_TOOLS } from "./settings.ts";

const tasksByHost = new WeakMap<LocalHost, ToolTasks>();

function tasksOf(host: LocalHost): ToolTasks {
  const known = tasksByHost.get(host);
  if (known) return known;
  const made = new ToolTasks();
  tasksByHost.set(host, made);
  return made;
}

const MAX_TASK_ID_CHARS = 128;
const taskId = z.string().min(1).max(MAX_TASK_ID_CHARS);
/** Routing only: the session the task's call is on (RoutingHost sends it to the host that has it). */
const session = z.string().max(64).optional();

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

/** Starts a call: `{kind: "inline", result}` when it ended within the window, else `{kind: "task", snapshot}`. */
export async function startTask(
  host: LocalHost,
  p: z.output<typeof taskStartInput>,
  ctx: CallContext,
): Promise<Record<string, unknown>> {
  const client: ClientProfile = p.client;
  let call: Awaited<ReturnType<typeof checkToolCall>>;
  try {
    if (!TASK_TOOLS.has(p.tool)) throw new Error(`${p.tool} does not run as a task`);
    call = await checkToolCall(p.tool, p.args, client);
  } catch (err) {
    return { kind: "inline", result: toolError(p.tool, err, client) };
  }
  // The default session opens in the caller's cwd and environment, as a plain exec's does.
  if (p.tool === "term_exec" && call.args.session === undefined && p.defaults)
    await host.manager.execTarget(undefined, undefined, p.defaults);
  // Not the request's signal: the task outlives the call that started it (and the client's connection).
  const taskCtx = { host, clientId: ctx.clientId, ...(ctx.noElicitWhy ? { noElicitWhy: ctx.noElicitWhy } : {}) };
  const started = await tasksOf(host).start(call, taskCtx, client, p.settings);
  return { ...started };
}

export async function getTask(host: LocalHost, p: z.output<typeof taskRefInput>): Promise<Record<string, unknown>> {
  const snapshot = await tasksOf(host).get(p.taskId);
  return snapshot ? { found: true, snapshot } : { found: false };
}

export async function updateTask(
  host: LocalHost,
  p: z.output<typeof taskUpdateInput>,
): Promise<Record<string, unknown>> {
  await tasksOf(host).answer(p.taskId, p.inputResponses);
  return { ok: true };
}

export async function cancelTask(host: LocalHost, p: z.output<typeof taskRefInput>): Promise<Record<string, unknown>> {
  return { snapshot: await tasksOf(host).cancel(p.taskId) };
}
