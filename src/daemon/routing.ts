/**
 * The MCP server's host: persistent sessions (the default) live in the daemon, `persistent:false`
 * ones in this process. A call on a session goes to whichever host has it (this process first);
 * term_list merges both; term_exec's default session `main` is persistent too. Session names are
 * unique across both hosts, so routing by name is unambiguous.
 */
import { AppError } from "../errors.ts";
import type { CallContext, HostEvent, LocalHost, SecretParams, SessionHost } from "../session/host.ts";
import type { OpenParams, OpenResult, SessionInfo } from "../session/manager.ts";
import type { ExecParams, ExecResult } from "../session/exec.ts";
import type { SendParams, SendResult } from "../session/send.ts";
import type { ReadParams, ReadResult } from "../session/read.ts";
import type { CloseSignal } from "../backend/backend.ts";
import type { DaemonHost } from "./host.ts";
import { LocalHostSlot } from "../session/local-slot.ts";
import { validateSessionId } from "../session/session-id.ts";
import type { HostMethod, HostParams, HostResult } from "../host-api.ts";
import { sessionOf } from "../host-target.ts";

/** Attempts at an automatic name when another client takes the one we picked meanwhile. */
const AUTO_NAME_ATTEMPTS = 8;

export interface RoutingOptions {
  /** Whether sessions are persistent unless term_open says otherwise (PTYHUB_PERSISTENT). */
  persistentByDefault: boolean;
}

export class RoutingHost implements SessionHost {
  private nextAuto = 1;
  /** This process's host; a slot made lazily loads the session stack with the first local session. */
  private readonly local: LocalHostSlot;

  constructor(
    local: LocalHost | LocalHostSlot,
    readonly daemon: DaemonHost,
    private readonly opts: RoutingOptions = { persistentByDefault: true },
  ) {
    this.local = local instanceof LocalHostSlot ? local : LocalHostSlot.holding(local);
  }

  /** This process's host if it has session `id`; null: the daemon's (or nobody's). */
  private localWith(id: string): LocalHost | null {
    const local = this.local.current;
    if (!local) {
      validateSessionId(id); // as the manager would: an invalid id is refused before any routing
      return null;
    }
    try {
      local.manager.get(id);
      return local;
    } catch (err) {
      if (err instanceof AppError && err.code === "SESSION_NOT_FOUND") return null;
      throw err; // An invalid id: the error says so.
    }
  }

  private hostOf(id: string): SessionHost {
    return this.localWith(id) ?? this.daemon;
  }

  private localNames(): Set<string> {
    return new Set(this.local.current?.manager.list().map((s) => s.session));
  }

  private pickName(taken: Set<string>): string {
    for (;;) {
      const id = `t${this.nextAuto++}`;
      if (!taken.has(id)) return id;
    }
  }

  private exists(id: string): AppError {
    return new AppError(
      "SESSION_EXISTS",
      `session '${id}' already exists`,
      "Use it as it is, close it with term_close first, or pick another name.",
    );
  }

  async open(p: OpenParams, ctx: CallContext): Promise<OpenResult> {
    const persistent = p.persistent ?? this.opts.persistentByDefault;
    if (!persistent) {
      if (p.name !== undefined) {
        if (await this.daemon.has(p.name)) throw this.exists(p.name);
        return (await this.local.get()).open({ ...p, persistent: false }, ctx);
      }
      const taken = new Set([...this.localNames(), ...(await this.daemon.names())]);
      return (await this.local.get()).open({ ...p, name: this.pickName(taken), persistent: false }, ctx);
    }
    if (p.name !== undefined) {
      if (this.localWith(p.name)) throw this.exists(p.name);
      return this.daemon.open({ ...p, persistent: true }, ctx);
    }
    await this.daemon.connection(true);
    for (let attempt = 1; ; attempt++) {
      const taken = new Set([...this.localNames(), ...(await this.daemon.names())]);
      const name = this.pickName(taken);
      try {
        return await this.daemon.open({ ...p, name, persistent: true }, ctx);
      } catch (err) {
        // Another client took the name between our look and our open: take the next one.
        if (!(err instanceof AppError) || err.code !== "SESSION_EXISTS" || attempt >= AUTO_NAME_ATTEMPTS) throw err;
      }
    }
  }

  exec(p: ExecParams & { session?: string }, ctx: CallContext): Promise<ExecResult> {
    if (p.session === undefined)
      return this.opts.persistentByDefault ? this.daemon.exec(p, ctx) : this.local.get().then((h) => h.exec(p, ctx));
    return this.hostOf(p.session).exec(p, ctx);
  }

  send(p: SendParams & { session: string }, ctx: CallContext): Promise<SendResult> {
    return this.hostOf(p.session).send(p, ctx);
  }

  read(p: ReadParams & { session: string }, ctx: CallContext): Promise<ReadResult> {
    return this.hostOf(p.session).read(p, ctx);
  }

  async list(ctx: CallContext): Promise<SessionInfo[]> {
    const [local, remote] = await Promise.all([this.local.current?.list() ?? [], this.daemon.list(ctx)]);
    return [...local, ...remote];
  }

  async close(
    p: { session: string; signal?: CloseSignal },
    ctx: CallContext,
  ): Promise<{ session: string; closed: true; exit_code: number | null }> {
    const local = this.localWith(p.session);
    if (local) return local.close(p);
    try {
      return await this.daemon.close(p, ctx);
    } catch (err) {
      // Perhaps an in-process session closed earlier: closing it again succeeds (the local
      // manager remembers), and an unknown name stays SESSION_NOT_FOUND.
      if (err instanceof AppError && err.code === "SESSION_NOT_FOUND") return (await this.local.get()).close(p);
      throw err;
    }
  }

  resize(
    p: { session: string; cols: number; rows: number },
    ctx: CallContext,
  ): Promise<{ session: string; cols: number; rows: number }> {
    return this.hostOf(p.session).resize(p, ctx);
  }

  typeSecret(p: SecretParams, ctx: CallContext): Promise<{ session: string; sent: true }> {
    return this.hostOf(p.session).typeSecret(p, ctx);
  }

  check(session: string, ctx: CallContext): Promise<void> {
    return this.hostOf(session).check(session, ctx);
  }

  /** A host API call: to the host of the session it names; naming none, to the default host. */
  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    const session = sessionOf(params);
    if (session !== undefined) return this.hostOf(session).call(method, params, ctx);
    const host = this.opts.persistentByDefault ? this.daemon : await this.local.get();
    return host.call(method, params, ctx);
  }

  /** Session events of both hosts (for MCP resource subscriptions). */
  subscribeEvents(listener: (event: HostEvent) => void): () => void {
    const offLocal = this.local.subscribeEvents(listener);
    const offDaemon = this.daemon.subscribeEvents(listener);
    return () => {
      offLocal();
      offDaemon();
    };
  }

  /** Ends this process's sessions; the daemon's keep running. */
  async shutdown(): Promise<void> {
    await Promise.allSettled([this.local.shutdown(), this.daemon.shutdown()]);
  }
}
