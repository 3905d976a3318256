/**
 * What a host needs of MCP Tasks: tasks live where their session lives (the daemon's tasks outlive
 * the MCP server that started them), but running one means running a tool, which is the MCP layer's
 * business. So the host is handed a runner by whoever builds it (src/mcp/app.ts, the daemon) and
 * never imports the tools itself: the folders stay layered (scripts/check-layers.ts).
 */
import type { z } from "zod";
import type { CallContext } from "../api/host.ts";
import type { taskRefInput, taskStartInput, taskUpdateInput } from "../api/methods/tasks.ts";
import type { OwningHost } from "./owning-host.ts";

type Result = Promise<Record<string, unknown>>;

export interface TaskRunner {
  start(host: OwningHost, p: z.output<typeof taskStartInput>, ctx: CallContext): Result;
  get(host: OwningHost, p: z.output<typeof taskRefInput>): Result;
  update(host: OwningHost, p: z.output<typeof taskUpdateInput>): Result;
  cancel(host: OwningHost, p: z.output<typeof taskRefInput>): Result;
}
