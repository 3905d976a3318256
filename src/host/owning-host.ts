/**
 * A host that owns its sessions (the local host): what its operations (src/host/local-operations.ts)
 * and its tasks (src/host/host-tasks.ts) use of it. An interface of its own, so that those files and
 * the host that runs them do not import each other.
 */
import type { SessionHost } from "../api/host.ts";
import type { TypingGate } from "../guard/gate.ts";
import type { SessionManager } from "../session/manager.ts";

export interface OwningHost extends SessionHost {
  readonly manager: SessionManager;
  /** The guard and the audit trail, which every typed line passes (src/guard/gate.ts). */
  readonly gate: TypingGate;
}
