/**
 * The session host: every operation the tools need, reached by name through one method. The local
 * host keeps sessions in this process, the daemon host forwards to the daemon, the routing host
 * picks between them (src/host/); the tools cannot tell where a session lives.
 */
import type { Elicit } from "./elicit.ts";
import type { HostMethod, HostParams, HostResult } from "./table.ts";

export interface CallContext {
  /** Identifies the reader, for per-client read cursors. */
  clientId: string;
  signal?: AbortSignal;
  /**
   * Asks the human through the MCP client (elicitation), e.g. for an SSH passphrase. Absent when
   * the client cannot; callers then fail with ELICITATION_UNSUPPORTED and a hint.
   */
  elicit?: Elicit;
  /**
   * Settles once this call's answer has been written out to the MCP client. A read cursor the call
   * moves in the daemon commits only then (src/session/delivery.ts); without it, on receipt.
   */
  delivered?: Promise<void>;
}

/** A change worth telling resource subscribers about. */
export interface HostEvent {
  session: string;
  kind: "opened" | "closed" | "command_finished" | "exited";
}

/**
 * The methods a host answers itself rather than passing on (the daemon host and the routing host
 * each have a few); every other method takes the host's generic path.
 */
export type SpecialMethods = {
  [M in HostMethod]?: (params: HostParams<M>, ctx: CallContext) => Promise<HostResult<M>>;
};

export interface SessionHost {
  /** Any method of the host API table (src/api/table.ts), by name, wherever the session lives. */
  call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>>;
  shutdown(): Promise<void>;
  /**
   * What the model should know about the hosts that serve it (a daemon of another version, settings
   * it has not taken), one line each, for term_list's head; hosts with nothing to say omit it.
   */
  notices?(): Promise<string[]>;
  /** Session lifecycle events (for resource subscriptions); hosts that cannot report them omit it. */
  onSessionEvent?(listener: (event: HostEvent) => void): () => void;
}
