/**
 * A server whose configuration cannot be used (a typo, a syntax error in config.json) must not
 * vanish before `initialize`: the client would show a dead server and no reason. Instead it starts,
 * and every tool call reads the configuration again: while it is still wrong the call fails with
 * the problem (the file, the key, what is allowed); once it is fixed the real host is built from
 * it and serves the call, with no restart needed.
 */
import { ConfigSchema, type Config } from "./config.ts";
import type { CallContext, HostEvent, SecretParams, SessionHost } from "./session/host.ts";
import type { OpenParams } from "./session/manager.ts";
import type { ExecParams } from "./session/exec.ts";
import type { SendParams } from "./session/send.ts";
import type { ReadParams } from "./session/read.ts";
import type { CloseSignal } from "./backend/backend.ts";
import type { HostMethod, HostParams } from "./host-api.ts";

/** What the gated host builds once the configuration loads: the app's host and its last-resort kill. */
export interface GatedApp {
  host: SessionHost;
  killNow(): void;
}

/** The settings a server with an unusable configuration starts with: every default. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}

export class ConfigGatedHost implements SessionHost {
  private app: GatedApp | null = null;
  private readonly listeners = new Set<(event: HostEvent) => void>();

  /** `build` loads the configuration and builds the app; it throws ConfigError while the file is wrong. */
  constructor(private readonly build: () => GatedApp) {}

  /** The real host, built on the first call that finds the configuration usable. */
  private host(): SessionHost {
    if (!this.app) {
      this.app = this.build();
      // Resource subscriptions made while the configuration was wrong start hearing events now.
      const subscribe = this.app.host.subscribeEvents?.bind(this.app.host);
      if (subscribe) subscribe((event) => this.emit(event));
    }
    return this.app.host;
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  async open(p: OpenParams, ctx: CallContext) {
    return this.host().open(p, ctx);
  }
  async exec(p: ExecParams & { session?: string }, ctx: CallContext) {
    return this.host().exec(p, ctx);
  }
  async send(p: SendParams & { session: string }, ctx: CallContext) {
    return this.host().send(p, ctx);
  }
  async read(p: ReadParams & { session: string }, ctx: CallContext) {
    return this.host().read(p, ctx);
  }
  async list(ctx: CallContext) {
    return this.host().list(ctx);
  }
  async close(p: { session: string; signal?: CloseSignal }, ctx: CallContext) {
    return this.host().close(p, ctx);
  }
  async resize(p: { session: string; cols: number; rows: number }, ctx: CallContext) {
    return this.host().resize(p, ctx);
  }
  async typeSecret(p: SecretParams, ctx: CallContext) {
    return this.host().typeSecret(p, ctx);
  }
  async check(session: string, ctx: CallContext) {
    return this.host().check(session, ctx);
  }
  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext) {
    return this.host().call(method, params, ctx);
  }
  async shutdown(): Promise<void> {
    await this.app?.host.shutdown();
  }
  killNow(): void {
    this.app?.killNow();
  }
  subscribeEvents(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
