/**
 * DaemonHost: the SessionHost whose sessions live in the daemon. Each call is forwarded over the
 * socket; the connection is made lazily, and only term_open (and term_exec's default session)
 * starts a daemon when none runs.
 *
 * When the daemon dies, its sessions die with it. Calls on them then fail with
 * DAEMON_UNAVAILABLE, saying so, rather than SESSION_NOT_FOUND: this host remembers the sessions
 * it saw in a daemon that went away, and a socket left behind by a daemon that did not exit
 * cleanly says the same for sessions it never saw. The next term_open starts a fresh daemon.
 */
import { AppError } from "../api/errors.ts";
import { HTTP_TOKEN_ENV } from "../config/http-token.ts";
import type { CallContext, HostEvent, SessionHost, SpecialMethods } from "../api/host.ts";
import { Emitter } from "../util/emitter.ts";
import { logger } from "../log.ts";
import type { DaemonClient } from "../daemon-client/client.ts";
import { DaemonConnectError } from "../daemon-client/connect-error.ts";
import { daemonNotices } from "../daemon-client/notices.ts";
import { daemonPaths } from "../daemon-client/daemon-paths.ts";
import type { HostMethod, HostParams, HostResult } from "../api/table.ts";
import { targetOf } from "./session-of.ts";
import { DEFAULT_SESSION } from "../api/session-id.ts";
import { isClientEnv, sessionEnvAllow } from "../config/client-env.ts";

const log = logger("daemon-host");

type Env = Record<string, string | undefined>;

/**
 * Variables of the MCP server's environment that must not override what the session host sets
 * itself (the terminal type, our per-session markers) when the environment is sent along.
 */
const NOT_FORWARDED = new Set([
  "TERM",
  "TERM_PROGRAM",
  "COLUMNS",
  "LINES",
  "PTYHUB_SESSION",
  "PTYHUB_NONCE",
  "PTYHUB_USER_ZDOTDIR",
  "PTYHUB_USER_ENV",
  HTTP_TOKEN_ENV,
]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment a session opened by this MCP server should start from: its own, as an
 * in-process session would (the daemon's environment is that of whichever server started it).
 */
export function forwardedEnv(env: Env = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  const allow = sessionEnvAllow();
  for (const [k, v] of Object.entries(env)) {
    // Not the MCP client's own credentials either (session/client-env.ts).
    if (v === undefined || !ENV_NAME.test(k) || NOT_FORWARDED.has(k) || v.includes("\0")) continue;
    if (!isClientEnv(k, allow)) out[k] = v;
  }
  return out;
}

export interface DaemonHostOptions {
  /** The environment that locates the daemon and is forwarded to sessions (default: process.env). */
  env?: Env;
  /** The role announced to the daemon (its log shows it). */
  role?: string;
}

export class DaemonHost implements SessionHost {
  private client: DaemonClient | null = null;
  private connecting: Promise<DaemonClient> | null = null;
  /** Sessions seen in the daemon we are connected to. */
  private readonly known = new Set<string>();
  /** Sessions of a daemon that went away. */
  private readonly lost = new Set<string>();
  private shuttingDown = false;
  /** Listeners of session events (MCP resource subscriptions), fed by the daemon's event frames. */
  private readonly events = new Emitter<HostEvent>();
  private eventListeners = 0;
  private eventsOn: DaemonClient | null = null;
  private readonly env: Env;
  private readonly role: string;

  constructor(opts: DaemonHostOptions = {}) {
    this.env = opts.env ?? process.env;
    this.role = opts.role ?? "mcp";
  }

  /** The connection to the daemon; with `start`, a daemon is started when none runs. */
  async connection(start: boolean): Promise<DaemonClient> {
    if (this.client && !this.client.closed) return this.client;
    if (this.connecting) {
      try {
        return await this.connecting;
      } catch (err) {
        if (!start) throw err;
      }
    }
    // The client and the code that starts a daemon load with the first connection: an MCP server
    // answers initialize and tools/list without them.
    const reach = import("../daemon-client/start.ts").then(({ reachDaemon }) =>
      reachDaemon({ role: this.role, env: this.env, start }),
    );
    const attempt = reach.then((c) => {
      this.adopt(c);
      return c;
    });
    this.connecting = attempt;
    try {
      return await attempt;
    } finally {
      if (this.connecting === attempt) this.connecting = null;
    }
  }

  /**
   * The daemon's version and settings where they differ from this process's (daemon-client/notices.ts);
   * none when no daemon runs. Never fails the call that asks: a notice that cannot be had is logged.
   */
  async notices(): Promise<string[]> {
    try {
      const c = await this.existing();
      return c ? await daemonNotices(c, this.env) : [];
    } catch (err) {
      log.warn("cannot compare the daemon's version and settings with this process's", err);
      return [];
    }
  }

  /** The connection if a daemon runs, else null (never starts one). */
  async existing(): Promise<DaemonClient | null> {
    try {
      return await this.connection(false);
    } catch (err) {
      if (err instanceof DaemonConnectError && err.notRunning) return null;
      throw err;
    }
  }

  private adopt(c: DaemonClient): void {
    this.client = c;
    log.info(`connected to daemon pid ${c.daemon.pid} (version ${c.daemon.version})`);
    c.onEvent((event) => {
      if (event.kind === "opened") this.see([event.session]);
      this.events.emit(event);
    });
    if (this.eventListeners > 0) this.subscribeOn(c);
    c.onClose(() => {
      if (this.client === c) this.client = null;
      if (this.eventsOn === c) this.eventsOn = null;
      if (this.shuttingDown) return;
      // We never hang up on the daemon ourselves while running: it stopped or died, and its
      // sessions with it.
      log.warn(
        `the daemon (pid ${c.daemon.pid}) went away; its sessions are gone: ${[...this.known].join(", ") || "none"}`,
      );
      const gone = [...this.known];
      for (const id of gone) this.lost.add(id);
      this.known.clear();
      for (const session of gone) this.events.emit({ session, kind: "closed" });
    });
  }

  private subscribeOn(c: DaemonClient): void {
    if (this.eventsOn === c) return;
    this.eventsOn = c;
    c.control("subscribeEvents", {}).catch((err) => log.debug("subscribing to daemon events failed", err));
  }

  /**
   * Session events of the daemon's sessions. Subscribing never starts a daemon: the subscription
   * is made on the connection as soon as there is one.
   */
  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    const off = this.events.on(listener);
    this.eventListeners++;
    if (this.client && !this.client.closed) this.subscribeOn(this.client);
    let on = true;
    return () => {
      if (!on) return;
      on = false;
      this.eventListeners--;
      off();
    };
  }

  /** Whether the daemon (if one runs) has this session; never starts a daemon. */
  async has(session: string): Promise<boolean> {
    return (await this.names()).includes(session);
  }

  /**
   * Session names in the daemon, if one runs (never starts one). A daemon that cannot be used
   * (another protocol version, say) has no names we could clash with: in-process sessions still
   * open; calls that need that daemon report its problem.
   */
  async names(): Promise<string[]> {
    let c: DaemonClient | null;
    try {
      c = await this.existing();
    } catch (err) {
      if (err instanceof DaemonConnectError) return [];
      throw err;
    }
    if (!c) return [];
    const list = await c.invoke("list", {}, { clientId: `${this.role}:${process.pid}` });
    this.see(list.map((s) => s.session));
    return list.map((s) => s.session);
  }

  private see(names: string[]): void {
    for (const n of names) {
      this.known.add(n);
      this.lost.delete(n);
    }
  }

  private gone(session: string): AppError {
    // We hung up ourselves (this server is stopping): the daemon and its sessions are fine.
    if (this.shuttingDown) return serverStopping(session);
    let where = "";
    try {
      where = ` (its log: ${daemonPaths(this.env).log})`;
    } catch {
      // Paths unavailable: leave the log out.
    }
    return new AppError(
      "DAEMON_UNAVAILABLE",
      `the ptyhub daemon is gone, and with it session '${session}' and every other persistent session${where}`,
      "Those sessions cannot be recovered. term_open (or term_exec) starts a new daemon and a fresh session.",
      false,
    );
  }

  /** Forwards a host API call on an existing session. */
  private async forward<M extends HostMethod>(
    session: string,
    method: M,
    params: HostParams<M>,
    ctx: CallContext,
  ): Promise<HostResult<M>> {
    let c: DaemonClient;
    try {
      c = await this.connection(false);
    } catch (err) {
      if (err instanceof DaemonConnectError && err.notRunning) {
        if (this.lost.has(session) || err.kind !== "absent") throw this.gone(session);
        throw new AppError(
          "SESSION_NOT_FOUND",
          `no session '${session}'`,
          "Open it with term_open, or pick one from term_list (no ptyhub daemon is running, so there are no " +
            "persistent sessions).",
        );
      }
      throw err;
    }
    try {
      const r = await c.invoke(method, params, ctx);
      this.known.add(session);
      this.lost.delete(session);
      return r;
    } catch (err) {
      if (err instanceof AppError) {
        if (err.code === "SESSION_NOT_FOUND" && this.lost.has(session)) throw this.gone(session);
        if (err.code === "DAEMON_UNAVAILABLE" && c.closed) throw this.gone(session);
      }
      throw err;
    }
  }

  /**
   * The methods that need more than forwarding on the session they name: opening (which starts a
   * daemon, and sends along where a local session starts), listing (which never starts one), and
   * closing a session that died with its daemon.
   */
  private readonly special: SpecialMethods = {
    open: (p, ctx) => this.open(p, ctx),
    list: (_p, ctx) => this.list(ctx),
    close: (p, ctx) => this.close(p, ctx),
  };

  /** A host API call: forwarded on the session it names, else to the daemon (started if need be). */
  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    const special = this.special[method];
    if (special) return special(params, ctx);
    const target = targetOf(method, params);
    if (target === undefined) return (await this.connection(true)).invoke(method, params, ctx);
    if (target.byDefault) return this.onDefaultSession(method, params, ctx);
    return this.forward(target.session, method, params, ctx);
  }

  private async open(p: HostParams<"open">, ctx: CallContext): Promise<HostResult<"open">> {
    const c = await this.connection(true);
    // A local session starts where and as this server would start it in-process; the other kinds
    // (ssh, serial) take no local cwd or environment.
    // The kinds load with the first open, not with the server (test/e2e/cold-start.test.ts).
    const { kindOfParams } = await import("../backend/registry/kinds.ts");
    const remote = !kindOfParams(p).takesClientEnv;
    const params = remote ? p : { ...p, cwd: p.cwd ?? process.cwd(), env: { ...forwardedEnv(this.env), ...p.env } };
    const r = await c.invoke("open", params, ctx);
    this.see([r.session]);
    return r;
  }

  /**
   * A call on the default session (src/host/session-of.ts): it starts the daemon if need be, and
   * the session opens there on first use in our cwd and environment.
   */
  private async onDefaultSession<M extends HostMethod>(
    method: M,
    params: HostParams<M>,
    ctx: CallContext,
  ): Promise<HostResult<M>> {
    const c = await this.connection(true);
    try {
      const defaults = { cwd: process.cwd(), env: forwardedEnv(this.env) };
      const r = await c.invoke(method, { ...params, defaults }, ctx);
      this.see([DEFAULT_SESSION]);
      return r;
    } catch (err) {
      if (err instanceof AppError && err.code === "DAEMON_UNAVAILABLE" && c.closed) throw this.gone(DEFAULT_SESSION);
      throw err;
    }
  }

  private async list(ctx: CallContext): Promise<HostResult<"list">> {
    const c = await this.existing();
    if (!c) return [];
    const list = await c.invoke("list", {}, ctx);
    this.see(list.map((s) => s.session));
    return list;
  }

  private async close(p: HostParams<"close">, ctx: CallContext): Promise<HostResult<"close">> {
    try {
      const r = await this.forward(p.session, "close", p, ctx);
      this.known.delete(p.session);
      return r;
    } catch (err) {
      // A session that died with its daemon is closed: closing a closed session succeeds.
      if (err instanceof AppError && err.code === "DAEMON_UNAVAILABLE" && this.lost.delete(p.session))
        return { session: p.session, closed: true, exit_code: null };
      throw err;
    }
  }

  /** Hangs up on the daemon; its sessions keep running there. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.client?.close();
    this.client = null;
  }
}

/** What a call still waiting on a persistent session hears when this server stops under it. */
function serverStopping(session: string): AppError {
  return new AppError(
    "DAEMON_UNAVAILABLE",
    `this MCP server is shutting down, so it stopped waiting; session '${session}' lives on in the ptyhub daemon`,
    `After the client reconnects, read what it printed meanwhile with term_read (session '${session}').`,
    true,
  );
}
