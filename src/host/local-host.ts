/**
 * LocalHost: the sessions of this process (the MCP server's own, or the daemon's). Every host
 * method is one entry of src/host/local-operations.ts; `call` validates the params against the
 * table (src/api/table.ts), applies the entry and checks its result against the table's output.
 */
import type { Config } from "../config/config.ts";
import type { CallContext, HostEvent } from "../api/host.ts";
import { parseHostParams, parseHostResult, type HostMethod, type HostParams, type HostResult } from "../api/table.ts";
import { TypingGate } from "./gate.ts";
import { SessionManager } from "../session/manager.ts";
import type { Session } from "../session/session.ts";
import { LOCAL_OPERATIONS } from "./local-operations.ts";
import type { OwningHost, TaskRunner } from "./owning-host.ts";

export class LocalHost implements OwningHost {
  readonly manager: SessionManager;
  /** The guard and the audit trail, which every typed line passes (src/host/gate.ts). */
  readonly gate: TypingGate;

  constructor(
    config: Config,
    /** Runs MCP Tasks: the MCP layer's tools, handed down so this folder never imports them. */
    readonly tasks: TaskRunner,
    persistent = false,
  ) {
    this.manager = new SessionManager(config, persistent);
    this.gate = new TypingGate(config, this.manager);
  }

  call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    return this.apply(method, params, ctx);
  }

  /**
   * A call whose params are not known to fit (the daemon's, from the wire): they are checked
   * against the method's input schema first; INVALID_ARGUMENT, changing nothing, if they fail.
   */
  async apply<M extends HostMethod>(method: M, params: unknown, ctx: CallContext): Promise<HostResult<M>> {
    const operation = LOCAL_OPERATIONS[method];
    const raw = await operation(this, parseHostParams(method, params), ctx);
    return parseHostResult(method, raw, "this host");
  }

  async shutdown(): Promise<void> {
    await this.manager.closeAll();
    this.gate.dispose();
  }

  /** A human typed into `session` through `ptyhub attach` (for the audit trail). */
  recordHumanInput(session: Session, data: Uint8Array): void {
    this.gate.humanInput(session, data);
  }

  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    return this.manager.onSessionEvent(listener);
  }
}
