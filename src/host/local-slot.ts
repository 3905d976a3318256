/**
 * This process's LocalHost, made when a session is first opened here. An MCP server whose sessions
 * all live in the daemon (the default) never loads the session stack: the terminal emulator, the
 * backends, the guard and the audit trail. Loading it at start cost the compiled binary's cold
 * start several milliseconds that initialize and tools/list do not need.
 *
 * Until the host exists this process has no sessions, which is what `current` being null says.
 * Event listeners subscribed before then are attached to the host when it is made.
 */
import type { LocalHost } from "./local-host.ts";
import type { HostEvent } from "../api/host.ts";
import { Emitter } from "../util/emitter.ts";

export class LocalHostSlot {
  private host: LocalHost | null = null;
  private making: Promise<LocalHost> | null = null;
  /** Listeners of session events, fed by the host once it exists. */
  private readonly events = new Emitter<HostEvent>();

  /** `make` creates the host (it imports the session stack); `made`: a host that already exists. */
  constructor(
    private readonly make: () => Promise<LocalHost>,
    made: LocalHost | null = null,
  ) {
    if (made) this.adopt(made);
  }

  /** A slot holding a host made already (tests, and callers that want it at once). */
  static holding(host: LocalHost): LocalHostSlot {
    return new LocalHostSlot(async () => host, host);
  }

  /** The host, if it has been made: null means no session was ever opened in this process. */
  get current(): LocalHost | null {
    return this.host;
  }

  /** The host, made (once) if need be. */
  get(): Promise<LocalHost> {
    if (this.host) return Promise.resolve(this.host);
    this.making ??= this.make().then(
      (host) => {
        this.adopt(host);
        return host;
      },
      (err: unknown) => {
        this.making = null; // a later call may try again
        throw err;
      },
    );
    return this.making;
  }

  private adopt(host: LocalHost): void {
    this.host = host;
    host.onSessionEvent((event) => this.events.emit(event));
  }

  onSessionEvent(listener: (event: HostEvent) => void): () => void {
    return this.events.on(listener);
  }

  /** Ends the host's sessions, waiting for a host still being made so that none outlives this. */
  async shutdown(): Promise<void> {
    const host = this.host ?? (await this.making?.catch(() => null)) ?? null;
    await host?.shutdown();
  }
}
