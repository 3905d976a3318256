/**
 * LocalHost: the sessions of this process (the MCP server's own, or the daemon's). Every host
 * method is one entry of src/host/local-operations.ts; `call` validates the params against the
 * table (src/api/table.ts), runs the entry's declared preamble (argument checks, the session it
 * names, alive or not, or the default one; the typing gate for what it types) and the entry,
 * checks its result against the table's output, and writes one trace line per call (debug level:
 * PTYHUB_LOG_LEVEL=debug).
 */
import type { HumanVia } from "../api/fields.ts";
import type { Config } from "../config/config.ts";
import type { CallContext, HostEvent } from "../api/host.ts";
import {
  parseHostParams,
  parseHostResult,
  type HostInput,
  type HostMethod,
  type HostParams,
  type HostResult,
} from "../api/table.ts";
import { TypingGate } from "./gate.ts";
import { SessionManager } from "../session/manager.ts";
import type { Session } from "../session/session.ts";
import { LOCAL_OPERATIONS, onSession, type Operation } from "./local-operations.ts";
import { sessionOf } from "./session-of.ts";
import { AppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import type { OwningHost, TaskRunner } from "./owning-host.ts";

const log = logger("host");

function elapsed(since: number): string {
  return `${(performance.now() - since).toFixed(1)} ms`;
}

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
    const started = performance.now();
    const p = parseHostParams(method, params);
    const named = sessionOf(p);
    try {
      const result = await this.run(method, p, ctx, named);
      log.debug(`${method}${named ? ` ${named}` : ""} by ${ctx.clientId}: ok in ${elapsed(started)}`);
      return parseHostResult(method, result, "this host");
    } catch (err) {
      const code = err instanceof AppError ? err.code : "INTERNAL";
      log.debug(`${method}${named ? ` ${named}` : ""} by ${ctx.clientId}: ${code} in ${elapsed(started)}`);
      throw err;
    }
  }

  /** The entry's preamble (local-operations.ts), then the entry. */
  private async run<M extends HostMethod>(
    method: M,
    p: HostInput<M>,
    ctx: CallContext,
    named: string | undefined,
  ): Promise<HostResult<M>> {
    const operation: Operation<M> = LOCAL_OPERATIONS[method];
    operation.check?.(p);
    if (!onSession(operation)) return operation.run(this, p, ctx);
    let session: Session;
    if (operation.session === "or-default") {
      session = await this.manager.execTarget(named, ctx.signal, operation.defaults?.(p));
    } else {
      if (named === undefined) throw new AppError("INTERNAL", `${method} names no session`, "This is a bug.");
      session = this.manager.get(named);
      if (operation.session === "alive") session.assertAlive();
    }
    if (operation.types) await this.gate.admit(session, operation.types(p), ctx);
    return operation.run(this, p, ctx, session);
  }

  async shutdown(): Promise<void> {
    await this.manager.closeAll();
    this.gate.dispose();
  }

  /** A human typed into `session` through `ptyhub attach` or the web view (for the audit trail). */
  recordHumanInput(session: Session, data: Uint8Array, via: HumanVia = "attach"): void {
    this.gate.humanInput(session, data, via);
  }

  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    return this.manager.onSessionEvent(listener);
  }
}
