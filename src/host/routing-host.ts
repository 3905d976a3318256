/**
 * The MCP server's host: persistent sessions (the default) live in the daemon, `persistent:false`
 * ones in this process. A call on a session goes to whichever host has it (this process first);
 * term_list merges both; term_exec's default session `main` is persistent too. Session names are
 * unique across both hosts, so routing by name is unambiguous.
 */
import { AppError } from "../api/errors.ts";
import type { LocalHost } from "./local-host.ts";
import type { CallContext, HostEvent, SessionHost, SpecialMethods } from "../api/host.ts";
import type { DaemonHost } from "./daemon-host.ts";
import { LocalHostSlot } from "./local-slot.ts";
import { AutoNames, sessionNotFound, validateSessionId } from "../api/session-id.ts";
import type { HostMethod, HostParams, HostResult } from "../api/table.ts";
import { sessionOf } from "./session-of.ts";

/** Attempts at an automatic name when another client takes the one we picked meanwhile. */
const AUTO_NAME_ATTEMPTS = 8;

export interface RoutingOptions {
  /** Whether sessions are persistent unless term_open says otherwise (PTYHUB_PERSISTENT). */
  persistentByDefault: boolean;
}

export class RoutingHost implements SessionHost {
  private readonly autoNames = new AutoNames();
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
    return this.autoNames.pick((id) => taken.has(id));
  }

  private exists(id: string): AppError {
    return new AppError(
      "SESSION_EXISTS",
      `session '${id}' already exists`,
      "Use it as it is, close it with term_close first, or pick another name.",
    );
  }

  /** The methods that need more than routing by the session they name. */
  private readonly special: SpecialMethods = {
    open: (p, ctx) => this.open(p, ctx),
    list: (p, ctx) => this.list(p, ctx),
    close: (p, ctx) => this.close(p, ctx),
  };

  /**
   * A host API call: to the host of the session it names; naming none (term_exec's default
   * session among them: src/host/session-of.ts), to the default host.
   */
  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    const special = this.special[method];
    if (special) return special(params, ctx);
    return this.route(method, params, ctx);
  }

  private async route<M extends HostMethod>(
    method: M,
    params: HostParams<M>,
    ctx: CallContext,
  ): Promise<HostResult<M>> {
    const session = sessionOf(params);
    const host = session !== undefined ? this.hostOf(session) : await this.defaultHost();
    try {
      return await host.call(method, params, ctx);
    } catch (err) {
      throw session !== undefined ? await this.withEveryName(err, session) : err;
    }
  }

  /**
   * A SESSION_NOT_FOUND for `session` from one host lists that host's sessions only (none, or "no
   * daemon is running", while in-process sessions exist): name both hosts' sessions instead.
   */
  private async withEveryName(err: unknown, session: string): Promise<unknown> {
    if (!(err instanceof AppError) || err.code !== "SESSION_NOT_FOUND" || err.message !== `no session '${session}'`)
      return err;
    const there = await this.daemon.names().catch(() => []);
    return sessionNotFound(session, [...this.localNames(), ...there]);
  }

  /** Where a call naming no session goes: the daemon, unless sessions are in-process by default. */
  private defaultHost(): Promise<SessionHost> {
    return this.opts.persistentByDefault ? Promise.resolve(this.daemon) : this.local.get();
  }

  private async open(p: HostParams<"open">, ctx: CallContext): Promise<HostResult<"open">> {
    const persistent = p.persistent ?? this.opts.persistentByDefault;
    if (!persistent) {
      const local = await this.local.get();
      if (p.name !== undefined) {
        if (await this.daemon.has(p.name)) throw this.exists(p.name);
        return local.call("open", { ...p, persistent: false }, ctx);
      }
      const taken = new Set([...this.localNames(), ...(await this.daemon.names())]);
      return local.call("open", { ...p, name: this.pickName(taken), persistent: false }, ctx);
    }
    if (p.name !== undefined) {
      if (this.localWith(p.name)) throw this.exists(p.name);
      return this.daemon.call("open", { ...p, persistent: true }, ctx);
    }
    await this.daemon.connection(true);
    for (let attempt = 1; ; attempt++) {
      const taken = new Set([...this.localNames(), ...(await this.daemon.names())]);
      const name = this.pickName(taken);
      try {
        return await this.daemon.call("open", { ...p, name, persistent: true }, ctx);
      } catch (err) {
        // Another client took the name between our look and our open: take the next one.
        if (!(err instanceof AppError) || err.code !== "SESSION_EXISTS" || attempt >= AUTO_NAME_ATTEMPTS) throw err;
      }
    }
  }

  private async list(p: HostParams<"list">, ctx: CallContext): Promise<HostResult<"list">> {
    const local = this.local.current;
    const [here, there] = await Promise.all([
      local ? local.call("list", p, ctx) : [],
      this.daemon.call("list", p, ctx),
    ]);
    return [...here, ...there];
  }

  private async close(p: HostParams<"close">, ctx: CallContext): Promise<HostResult<"close">> {
    const local = this.localWith(p.session);
    if (local) return local.call("close", p, ctx);
    try {
      return await this.daemon.call("close", p, ctx);
    } catch (err) {
      // Perhaps an in-process session closed earlier: closing it again succeeds (the local
      // manager remembers), and an unknown name stays SESSION_NOT_FOUND.
      if (err instanceof AppError && err.code === "SESSION_NOT_FOUND") {
        try {
          return await (await this.local.get()).call("close", p, ctx);
        } catch (e) {
          throw await this.withEveryName(e, p.session);
        }
      }
      throw err;
    }
  }

  /** Session events of both hosts (for MCP resource subscriptions). */
  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    const offLocal = this.local.onSessionEvent(listener);
    const offDaemon = this.daemon.onSessionEvent(listener);
    return () => {
      offLocal();
      offDaemon();
    };
  }

  /** In-process sessions run on this process's code and settings: only the daemon can differ. */
  notices(): Promise<string[]> {
    return this.daemon.notices();
  }

  /** Ends this process's sessions; the daemon's keep running. */
  async shutdown(): Promise<void> {
    await Promise.allSettled([this.local.shutdown(), this.daemon.shutdown()]);
  }
}
