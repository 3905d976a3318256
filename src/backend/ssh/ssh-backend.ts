/**
 * SSH backend: one authenticated connection (through jump hosts when asked) and one session
 * channel with a PTY, over which every later byte travels: no re-authentication per command.
 * The channel's bytes are the session's output; resize is a window-change request; keepalives
 * notice a silently dropped connection, and any loss of the connection ends the session promptly
 * with the reason ("connection lost: …"), never a hang.
 *
 * openSshBackend() is the asynchronous factory: it resolves once the remote program runs, or
 * fails with SSH_CONNECT_FAILED, SSH_AUTH_FAILED, SSH_HOST_KEY_UNKNOWN, SSH_HOST_KEY_MISMATCH or
 * ELICITATION_UNSUPPORTED (see src/backend/ssh/connect.ts).
 */
import type { ClientChannel } from "ssh2";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import { connectSsh, type SshConnection, type SshParams } from "./connect.ts";
import { launchRemote } from "./remote-shell.ts";
import type { ProgramSpec } from "../descriptor.ts";
import type { Elicit } from "../../api/elicit.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import { logger } from "../../log.ts";
import { signalNumber } from "../../util/process-tree.ts";

export type { SshParams } from "./connect.ts";

const log = logger("ssh");

/** After the channel closes, how long output still in flight may take before the exit is reported. */
const DRAIN_AFTER_CLOSE_MS = 30;
/** How long close() waits for the server to confirm before dropping the connection. */
const CLOSE_GRACE_MS = 2000;

export class SshBackend implements Backend {
  readonly kind = "ssh" as const;
  readonly pid = null;
  private readonly sinks = new BackendSinks();
  private exitInfo: ExitInfo | null = null;
  private status: { code: number | null; signal: string | null } | null = null;
  private connectionError: string | null = null;
  private closingByUs = false;
  private closing: Promise<ExitInfo> | null = null;
  private readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(
    private readonly conn: SshConnection,
    private readonly channel: ClientChannel,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    channel.on("data", (d: Buffer) => this.deliver(d));
    channel.stderr.on("data", (d: Buffer) => this.deliver(d));
    channel.on("exit", (code: number | null, signal?: string) => {
      this.status = { code: typeof code === "number" ? code : null, signal: signal ?? null };
    });
    channel.on("close", () => this.finish());
    // Every hop: losing any of them loses the session.
    for (const c of [...conn.hops, conn.client]) {
      c.on("error", (err: Error & { level?: string }) => {
        if (err.level === "agent") return;
        this.connectionError ??=
          err.level === "client-timeout" ? `${err.message.toLowerCase()}: the host stopped answering` : err.message;
        log.info(`ssh connection error: ${err.message}`);
      });
      c.on("close", () => this.finish());
    }
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo || !this.channel.writable) return;
    this.channel.write(typeof data === "string" ? data : Buffer.from(data));
  }

  resize(cols: number, rows: number): void {
    if (this.exitInfo) return;
    try {
      this.channel.setWindow(rows, cols, 0, 0);
    } catch (err) {
      log.debug(`window-change failed: ${(err as Error).message}`);
    }
  }

  ttyModes(): TtyModes | null {
    return null;
  }

  /**
   * Ends the remote program: closing the channel hangs up its PTY (SIGHUP to everything in it),
   * then the connection (and the jump hosts') ends. `signal` is sent first when the server
   * supports signal requests; the hang-up follows regardless.
   */
  close(signal: CloseSignal = "HUP"): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      if (!this.exitInfo) {
        this.closingByUs = true;
        try {
          if (signal !== "HUP") this.channel.signal(signal);
        } catch {
          // Not supported, or already closed.
        }
        try {
          this.channel.close();
        } catch {
          // Already closed.
        }
        this.conn.end();
        const timer = setTimeout(() => {
          for (const c of [this.conn.client, ...this.conn.hops]) c.destroy();
          this.finish();
        }, CLOSE_GRACE_MS);
        await this.exited;
        clearTimeout(timer);
      }
      this.conn.end();
      return this.exitInfo!;
    })();
    return this.closing;
  }

  private deliver(data: Buffer): void {
    this.sinks.data(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }

  /** The channel or the connection closed: work out why, once. */
  private finish(): void {
    if (this.exitInfo) return;
    let info: ExitInfo;
    if (this.status) {
      const { code, signal } = this.status;
      info = signal
        ? {
            exitCode: 128 + (signalNumber(signal) ?? 0),
            signal: `SIG${signal.replace(/^SIG/, "")}`,
            reason: `killed by SIG${signal.replace(/^SIG/, "")}`,
          }
        : { exitCode: code, signal: null, reason: `exited with code ${code}` };
    } else if (this.closingByUs) {
      info = { exitCode: null, signal: null, reason: "closed (connection ended by ptyhub)" };
    } else {
      info = {
        exitCode: null,
        signal: null,
        reason: `connection lost${this.connectionError ? `: ${this.connectionError}` : ""}`,
      };
    }
    this.exitInfo = info;
    // Output may still be in flight on the stream: report the exit after it.
    setTimeout(() => this.report(), DRAIN_AFTER_CLOSE_MS);
    if (!this.closingByUs) this.conn.end();
  }

  /** After the drain delay: the exit is final. */
  private report(): void {
    if (!this.exitInfo) return;
    log.debug(`ssh session ended: ${this.exitInfo.reason}`);
    this.sinks.exited(this.exitInfo);
    this.resolveExited(this.exitInfo);
  }
}

export interface OpenSshRequest extends ProgramSpec {
  ssh: SshParams;
  /** Bound on the remote setup after login. */
  setupTimeoutMs: number;
}

export interface OpenSshResult {
  backend: SshBackend;
  integration: Integration;
  family: ShellFamily | null;
  /** `user@host:port`, for the session's target. */
  target: string;
  cwd: string | null;
  /** The remote program's start is marked (see OpenedBackend.startMark). */
  startMark: boolean;
}

export interface OpenSshContext {
  elicit?: Elicit;
  signal?: AbortSignal;
}

/** Connects, logs in, starts the remote program; resolves once its channel is open. */
export async function openSshBackend(req: OpenSshRequest, ctx: OpenSshContext = {}): Promise<OpenSshResult> {
  const t0 = Date.now();
  const conn = await connectSsh(req.ssh, { elicit: ctx.elicit, signal: ctx.signal });
  log.debug(`connected to ${conn.host.hostname}:${conn.host.port} in ${Date.now() - t0} ms`);
  try {
    const launch = await launchRemote(conn.client, {
      command: req.command,
      args: req.args,
      cwd: req.cwd,
      env: req.env,
      sessionId: req.sessionId,
      nonce: req.nonce,
      cols: req.cols,
      rows: req.rows,
      agentForward: conn.agentForward,
      timeoutMs: req.setupTimeoutMs,
    });
    log.debug(`remote ${launch.program} started (${launch.integration}) after ${Date.now() - t0} ms`);
    const backend = new SshBackend(conn, launch.channel);
    const h = conn.host;
    return {
      backend,
      integration: launch.integration,
      family: launch.family,
      target: `${h.user}@${h.hostname}:${h.port}`,
      cwd: launch.cwd,
      startMark: launch.startMark,
    };
  } catch (err) {
    conn.end();
    throw err;
  }
}
