/**
 * One tools/call, whichever protocol era carries it: validation before anything reaches a session,
 * the tool run, its text rendering fitted to the client, typed errors turned into tool results at
 * this edge only. The 2025-11-25 server (server.ts) and the 2026-07-28 one (era/new-era-server.ts)
 * both answer through it, so a result is the same bytes in either era.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import type { ClientProfile } from "./client-profile.ts";
import {
  addHeaderNote,
  type BudgetClamp,
  clampBudget,
  clampNote,
  clampWait,
  fitToClient,
  type WaitClamp,
  waitClampNote,
} from "./client-budget.ts";
import { errorResult, okResult } from "./result.ts";
import type { ToolContext, ToolDef } from "./tool.ts";
import { describeIssues } from "../api/issues.ts";
import { appOnlyRefused } from "./app-visibility.ts";

const log = logger("mcp");

/**
 * The tool definitions by name, loaded on the first tools/call: their zod schemas take a while to
 * build, and initialize and tools/list (src/mcp/listing.ts) need none of them.
 */
let toolsByName: Promise<Map<string, ToolDef>> | null = null;
export function toolDefs(): Promise<Map<string, ToolDef>> {
  toolsByName ??= import("./tools/all-tools.ts").then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t])));
  return toolsByName;
}

/** Whether the tool `name` may run as an MCP Task (its definition says so). */
export async function runsAsTask(name: string): Promise<boolean> {
  return (await toolDefs()).get(name)?.task === true;
}

/**
 * Loads the tool definitions once tools/list has been answered (a timer, so the answer is written
 * first): the client is reading the listing then, and its model takes longer still to make a first
 * tools/call, which so finds them loaded.
 */
export function preloadToolDefs(): void {
  setTimeout(() => toolDefs().catch((err) => log.warn(`loading the tool definitions failed: ${String(err)}`)), 0);
}

/** A call whose tool exists and whose arguments passed its schema (budget and wait clamped to the client). */
export interface CheckedCall {
  tool: ToolDef;
  args: Record<string, unknown>;
  clamp: BudgetClamp | null;
  waitClamp: WaitClamp | null;
}

/**
 * The tool and its parsed arguments; throws INVALID_ARGUMENT (nothing sent anywhere) otherwise.
 * `apps`: the client renders MCP Apps, so the view's app-only tools are its to call (app-visibility.ts).
 */
export async function checkToolCall(
  name: string,
  rawArgs: unknown,
  client: ClientProfile,
  apps = false,
): Promise<CheckedCall> {
  const byName = await toolDefs();
  const tool = byName.get(name);
  if (!tool) {
    const listed = [...byName.values()].filter((t) => apps || !t.appOnly).map((t) => t.name);
    throw new AppError(
      "INVALID_ARGUMENT",
      `unknown tool '${String(name).slice(0, 80)}'`,
      `Tools: ${listed.join(", ")}.`,
    );
  }
  if (tool.appOnly && !apps) throw appOnlyRefused(name);
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid arguments for ${name}: ${describeIssues(parsed.error)}`,
      "Check the tool's input schema; nothing was sent to any session.",
    );
  }
  const args = parsed.data as Record<string, unknown>;
  return { tool, args, clamp: clampBudget(args, client), waitClamp: clampWait(args, client) };
}

/** A tool's raw result and the MCP result the client gets for it. */
export interface ToolOutcome {
  output: Record<string, unknown>;
  result: CallToolResult;
}

/** Runs a checked call and renders its result for this client (errors are thrown, see toolError). */
export async function runCheckedCall(call: CheckedCall, ctx: ToolContext, client: ClientProfile): Promise<ToolOutcome> {
  const output = (await call.tool.run(call.args, ctx)) as Record<string, unknown>;
  return { output, result: renderOutput(call, output, client) };
}

/** The MCP result for a tool's raw output (also for the output of a task, rendered when it ends). */
export function renderOutput(
  call: CheckedCall,
  output: Record<string, unknown>,
  client: ClientProfile,
): CallToolResult {
  let text = call.tool.text(output);
  if (call.clamp && output.truncated) text = addHeaderNote(text, clampNote(call.clamp));
  // The wait ran out (term_exec "running", a read or send "via timeout"): the model learns it was not its own.
  if (call.waitClamp && (output.status === "running" || output.via === "timeout"))
    text = addHeaderNote(text, waitClampNote(call.waitClamp));
  return okResult(output, fitToClient(text, client), client.form);
}

/** A failed call as the tool result the client gets (unexpected errors are logged). */
export function toolError(name: string, err: unknown, client: ClientProfile): CallToolResult {
  if (!(err instanceof AppError)) log.error(`${name} failed`, err);
  return errorResult(err, client.form);
}

/** validate, run, render: the whole of a plain (inline) tools/call. */
export async function callTool(
  name: string,
  rawArgs: unknown,
  ctx: ToolContext,
  client: ClientProfile,
): Promise<CallToolResult> {
  let reader = client;
  try {
    const call = await checkToolCall(name, rawArgs, client, ctx.appView !== undefined);
    // The view's own tools are read by the view, a program, whatever form the client's model reads.
    if (call.tool.appOnly) reader = { ...client, form: "structured" };
    return (await runCheckedCall(call, ctx, reader)).result;
  } catch (err) {
    return toolError(name, err, reader);
  }
}
