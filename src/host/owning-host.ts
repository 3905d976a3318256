/**
 * A host that owns its sessions (the local host): what its operations (src/host/local-operations.ts)
 * and its tasks use of it. An interface of its own, so that those files and the host that runs them
 * do not import each other.
 */
import type { CallContext, SessionHost } from "../api/host.ts";
import type { TypingGate } from "./gate.ts";
import type { SessionManager } from "../session/manager.ts";
import type { z } from "zod";
import type { taskRefInput, taskStartInput, taskUpdateInput } from "../api/methods/tasks.ts";

export interface OwningHost extends SessionHost {
  readonly manager: SessionManager;
  /** The guard and the audit trail, which every typed line passes (src/host/gate.ts). */
  readonly gate: TypingGate;
  /** Runs the calls made as MCP Tasks (handed in by whoever builds the host). */
  readonly tasks: TaskRunner;
}

/**
 * What a host needs of MCP Tasks: tasks live where their session lives (the daemon's tasks outlive
 * the MCP server that started them), but running one means running a tool, which is the MCP layer's
 * business. So the host is handed a runner (src/mcp/tasks/host-tasks.ts) by whoever builds it
 * (src/mcp/app.ts, the daemon) and never imports the tools: the folders stay layered.
 */
type Result = Promise<Record<string, unknown>>;

export interface TaskRunner {
  start(host: OwningHost, p: z.output<typeof taskStartInput>, ctx: CallContext): Result;
  get(host: OwningHost, p: z.output<typeof taskRefInput>): Result;
  update(host: OwningHost, p: z.output<typeof taskUpdateInput>): Result;
  cancel(host: OwningHost, p: z.output<typeof taskRefInput>): Result;
}
