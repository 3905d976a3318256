/**
 * Tasks live where their session lives: each LocalHost (this process's, or the daemon's for
 * persistent sessions) keeps the tasks of the calls it runs, so a task outlives the MCP server
 * that started it, and a new server process (`claude --resume` after a crash) answers tasks/get
 * for the same id by asking the daemon. These are the host API methods (src/api/table.ts) that
 * start, poll, answer and cancel them; the MCP edge only routes and wraps them.
 *
 * Who may see a task: whoever holds its id. Ids are random UUIDs (122 bits) handed only to the
 * client that made the call, there is no tasks/list, and the daemon serves only its own user's
 * socket; a resumed client polls with the ids it kept, from a new process whose pid, and so client
 * label, differ, so the label cannot be the key.
 */
import type { z } from "zod";
import type { taskRefInput, taskStartInput, taskUpdateInput } from "../../api/methods/tasks.ts";
import type { OwningHost, TaskRunner } from "../../host/owning-host.ts";
import type { CallContext } from "../../api/host.ts";
import { checkToolCall, runsAsTask, toolError } from "../call-tool.ts";
import type { ClientProfile } from "../client-profile.ts";
import { ToolTasks } from "./tool-tasks.ts";

const tasksByHost = new WeakMap<OwningHost, ToolTasks>();

function tasksOf(host: OwningHost): ToolTasks {
  const known = tasksByHost.get(host);
  if (known) return known;
  const made = new ToolTasks();
  tasksByHost.set(host, made);
  return made;
}

/** Starts a call: `{kind: "inline", result}` when it ended within the window, else `{kind: "task", snapshot}`. */
export async function startTask(
  host: OwningHost,
  p: z.output<typeof taskStartInput>,
  ctx: CallContext,
): Promise<Record<string, unknown>> {
  const client: ClientProfile = p.client;
  let call: Awaited<ReturnType<typeof checkToolCall>>;
  try {
    if (!(await runsAsTask(p.tool))) throw new Error(`${p.tool} does not run as a task`);
    call = await checkToolCall(p.tool, p.args, client);
  } catch (err) {
    return { kind: "inline", result: toolError(p.tool, err, client) };
  }
  // The default session opens in the caller's cwd and environment, as a plain exec's does.
  if (p.tool === "term_exec" && call.args.session === undefined && p.defaults)
    await host.manager.execTarget(undefined, undefined, p.defaults);
  // Not the request's signal: the task outlives the call that started it (and the client's connection).
  const started = await tasksOf(host).start(call, { host, clientId: ctx.clientId }, client, p.settings);
  return { ...started };
}

export async function getTask(host: OwningHost, p: z.output<typeof taskRefInput>): Promise<Record<string, unknown>> {
  const snapshot = await tasksOf(host).get(p.taskId);
  return snapshot ? { found: true, snapshot } : { found: false };
}

export async function updateTask(
  host: OwningHost,
  p: z.output<typeof taskUpdateInput>,
): Promise<Record<string, unknown>> {
  await tasksOf(host).answer(p.taskId, p.inputResponses);
  return { ok: true };
}

export async function cancelTask(host: OwningHost, p: z.output<typeof taskRefInput>): Promise<Record<string, unknown>> {
  return { snapshot: await tasksOf(host).cancel(p.taskId) };
}

/** The runner a LocalHost is built with (src/host/owning-host.ts). */
export const TOOL_TASK_RUNNER: TaskRunner = { start: startTask, get: getTask, update: updateTask, cancel: cancelTask };
