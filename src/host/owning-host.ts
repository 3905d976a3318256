/**
 * A host that owns its sessions (the local host): what its operations (src/host/local-operations.ts)
 * and its tasks (src/mcp/tasks/host-tasks.ts, through src/host/task-runner.ts) use of it. An
 * interface of its own, so that those files and the host that runs them do not import each other.
 */
import type { SessionHost } from "../api/host.ts";
import type { TypingGate } from "./gate.ts";
import type { SessionManager } from "../session/manager.ts";
import type { TaskRunner } from "./task-runner.ts";

export interface OwningHost extends SessionHost {
  readonly manager: SessionManager;
  /** The guard and the audit trail, which every typed line passes (src/host/gate.ts). */
  readonly gate: TypingGate;
  /** Runs the calls made as MCP Tasks (handed in by whoever builds the host). */
  readonly tasks: TaskRunner;
}
