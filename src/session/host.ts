/**
 * The session host: the operations the MCP tools need, in one interface. LocalHost keeps the
 * sessions in this process; the daemon serves the same interface over its socket, so the tools
 * cannot tell where a session lives.
 */
import type { Config } from "../config.ts";
import type { CloseSignal } from "../backend/backend.ts";
import { SessionManager, type OpenParams, type OpenResult, type SessionInfo } from "./manager.ts";
import { execCommand, type ExecParams, type ExecResult } from "./exec.ts";
import { compileUntil, sendInput, type SendParams, type SendResult } from "./send.ts";
import { encodeKeys } from "../terminal/keys.ts";
import { readSession, type ReadParams, type ReadResult } from "./read.ts";
import { TypingGate } from "../guard/gate.ts";
import type { Session } from "./session.ts";
import {
  HOST_API,
  parseHostParams,
  parseHostResult,
  type HostMethod,
  type HostParams,
  type HostResult,
} from "../host-api.ts";
import type { SerialParams, SerialResult } from "./serial-control.ts";

import type { Elicit } from "../elicit.ts";

export type { Elicit, ElicitResult } from "../elicit.ts";

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
   * Why `elicit` is absent although the client offers elicitation (a 2026-07-28 request: that era
   * has no server-initiated requests yet), for the error to say instead of "this client cannot".
   */
  noElicitWhy?: string;
  /**
   * Settles once this call's answer has been written out to the MCP client. A read cursor the call
   * moves in the daemon commits only then (src/session/delivery.ts); without it, on receipt.
   */
  delivered?: Promise<void>;
}

export interface SecretParams {
  session: string;
  secret: string;
  enter: boolean;
}

/** A change worth telling resource subscribers about. */
export interface HostEvent {
  session: string;
  kind: "opened" | "closed" | "command_finished" | "exited";
}

export interface SessionHost {
  open(p: OpenParams, ctx: CallContext): Promise<OpenResult>;
  exec(p: ExecParams & { session?: string }, ctx: CallContext): Promise<ExecResult>;
  send(p: SendParams & { session: string }, ctx: CallContext): Promise<SendResult>;
  read(p: ReadParams & { session: string }, ctx: CallContext): Promise<ReadResult>;
  list(ctx: CallContext): Promise<SessionInfo[]>;
  close(
    p: { session: string; signal?: CloseSignal },
    ctx: CallContext,
  ): Promise<{ session: string; closed: true; exit_code: number | null }>;
  resize(
    p: { session: string; cols: number; rows: number },
    ctx: CallContext,
  ): Promise<{ session: string; cols: number; rows: number }>;
  typeSecret(p: SecretParams, ctx: CallContext): Promise<{ session: string; sent: true }>;
  /** Validates that a session exists and is alive (before asking a human for a secret). */
  check(session: string, ctx: CallContext): Promise<void>;
  /** Any method of the host API table (src/host-api.ts), by name, wherever the session lives. */
  call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>>;
  shutdown(): Promise<void>;
  /** Session lifecycle events (for resource subscriptions); hosts that cannot report them omit it. */
  subscribeEvents?(listener: (event: HostEvent) => void): () => void;
}

export class LocalHost implements SessionHost {
  readonly manager: SessionManager;
  /** The guard and the audit trail, which every typed line passes (src/guard/gate.ts). */
  readonly gate: TypingGate;

  constructor(config: Config, persistent = false) {
    this.manager = new SessionManager(config, persistent);
    this.gate = new TypingGate(config, this.manager);
  }

  async open(p: OpenParams, ctx: CallContext): Promise<OpenResult> {
    return this.manager.open(p, ctx.clientId, ctx.signal, ctx.elicit, (id) => this.gate.open(id, p, ctx));
  }

  async exec(p: ExecParams & { session?: string }, ctx: CallContext): Promise<ExecResult> {
    const session = await this.manager.execTarget(p.session, ctx.signal);
    await this.gate.exec(session, p.command, ctx);
    // A serial line's shell gets its markers on first use (src/session/serial-shell.ts).
    if (session.kind === "serial") {
      const { prepareSerialExec } = await import("./serial-control.ts");
      await prepareSerialExec(session, p.timeout_ms, ctx.signal);
    }
    return session.redactFields(await execCommand(session, p, ctx.clientId, ctx.signal));
  }

  async send(p: SendParams & { session: string }, ctx: CallContext): Promise<SendResult> {
    // Arguments are checked before the session is even looked up: bad input changes nothing.
    compileUntil(p.until);
    if (p.keys) encodeKeys(p.keys);
    const session = this.manager.get(p.session);
    await this.gate.send(session, p, ctx);
    return session.redactFields(await sendInput(session, p, ctx.clientId, ctx.signal));
  }

  async read(p: ReadParams & { session: string }, ctx: CallContext): Promise<ReadResult> {
    compileUntil(p.until);
    const session = this.manager.get(p.session);
    return session.redactFields(await readSession(session, p, ctx.clientId, ctx.signal));
  }

  async list(_ctx?: CallContext): Promise<SessionInfo[]> {
    return this.manager.list();
  }

  async close(
    p: { session: string; signal?: CloseSignal },
    _ctx?: CallContext,
  ): Promise<{ session: string; closed: true; exit_code: number | null }> {
    return this.manager.close(p.session, p.signal);
  }

  async resize(
    p: { session: string; cols: number; rows: number },
    _ctx?: CallContext,
  ): Promise<{ session: string; cols: number; rows: number }> {
    const s = this.manager.get(p.session);
    s.assertAlive();
    s.resize(p.cols, p.rows);
    return { session: s.id, cols: s.cols, rows: s.rows };
  }

  async typeSecret(p: SecretParams, ctx: CallContext): Promise<{ session: string; sent: true }> {
    const s = this.manager.get(p.session);
    s.assertAlive();
    s.addSecret(p.secret);
    this.gate.secret(s, ctx);
    s.write(p.secret + (p.enter ? "\r" : ""));
    return { session: s.id, sent: true };
  }

  async serial(p: SerialParams & { session: string }, _ctx?: CallContext): Promise<SerialResult> {
    const { serialControl } = await import("./serial-control.ts");
    return serialControl(this.manager.get(p.session), p);
  }

  async check(session: string, _ctx?: CallContext): Promise<void> {
    this.manager.get(session).assertAlive();
  }

  async call<M extends HostMethod>(method: M, params: HostParams<M>, ctx: CallContext): Promise<HostResult<M>> {
    const raw = await HOST_API[method].apply(this, parseHostParams(method, params), ctx);
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

  subscribeEvents(listener: (event: HostEvent) => void): () => void {
    return this.manager.subscribeEvents(listener);
  }
}
