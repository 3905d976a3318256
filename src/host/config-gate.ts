/**
 * A server whose configuration cannot be used (a typo, a syntax error in config.json) must not
 * vanish before `initialize`: the client would show a dead server and no reason. Instead it starts,
 * and every tool call reads the configuration again: while it is still wrong the call fails with
 * the problem (the file, the key, what is allowed); once it is fixed the real host is built from
 * it and serves the call, with no restart needed.
 */
import { ConfigSchema, type Config } from "../config/config.ts";
import type { CallContext, HostEvent, SessionHost } from "../api/host.ts";
import type { HostMethod, HostParams, HostResult } from "../api/table.ts";

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
      const subscribe = this.app.host.onSessionEvent?.bind(this.app.host);
      if (subscribe) subscribe((event) => this.emit(event));
    }
    return this.app.host;
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    return this.host().call(method, params, ctx);
  }
  async shutdown(): Promise<void> {
    await this.app?.host.shutdown();
  }
  killNow(): void {
    this.app?.killNow();
  }
  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
