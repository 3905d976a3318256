/**
 * A client of the daemon: one connection, the hello handshake, calls matched to their results by
 * id, cancellation, elicitation answered on the daemon's behalf, and an attach stream. When the
 * connection drops, every call still waiting fails with DAEMON_UNAVAILABLE.
 */
import { AppError, CancelledError } from "../api/errors.ts";
import { VERSION } from "../version.ts";
import type { CallContext, HostEvent } from "../api/host.ts";
import { logger } from "../log.ts";
import { Emitter } from "../util/emitter.ts";
import { Conn, type ByteChannel } from "./conn.ts";
import { StreamChannel, type DuplexStream } from "./stream-channel.ts";
import { parseHostResult, type HostMethod, type HostParams, type HostResult } from "../api/table.ts";
import { parseControlResult, type ControlMethod, type ControlParams, type ControlResult } from "./control-table.ts";
import {
  PROTOCOL,
  fromBase64,
  errorFromWire,
  parseDaemonFrame,
  rawFrameType,
  type ClientFrame,
  type DaemonFrame,
  type ElicitFrame,
  type ExitFrame,
  type HelloFrame,
} from "./protocol.ts";
import { DaemonConnectError } from "./connect-error.ts";
import { checkProof, loadOrCreateKey, newChallenge, proveKey } from "./pipe-auth.ts";

const log = logger("daemon-client");

/** How long the daemon has to answer our hello; it answers at once unless it is wedged. */
const HELLO_TIMEOUT_MS = 5000;

export { DaemonConnectError, type ConnectFailure } from "./connect-error.ts";

type HandshakeOptions = Omit<ConnectOptions, "socket">;

interface HandshakeEnds {
  /** The byte channel is open: the hello goes out on the Conn made over it. */
  opened(channel: ByteChannel): Conn;
  fail(err: DaemonConnectError): void;
}

export interface StreamConnectOptions extends HandshakeOptions {
  /** Where the stream leads, for messages ("ssh web1", "a relay process"). */
  label: string;
}

export interface ConnectOptions {
  socket: string;
  /** What this client is, for the daemon's log: "mcp", "cli", "attach". */
  role: string;
  /** The protocol number we announce (tests use another one to provoke a mismatch). */
  protocol?: number;
  helloTimeoutMs?: number;
  /**
   * The user's key file (DaemonPaths.key), where the transport cannot tell who serves it (a named
   * pipe): the daemon must prove it holds the key before we send anything but our hello.
   */
  key?: string | null;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  elicit?: CallContext["elicit"];
  delivered?: CallContext["delivered"];
}

export class DaemonClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly closeListeners = new Set<() => void>();
  private readonly outputs = new Emitter<Uint8Array>();
  private readonly events = new Emitter<HostEvent>();
  private readonly exits = new Emitter<ExitFrame>();

  private constructor(
    private readonly conn: Conn,
    /** The daemon's hello: its pid, version and protocol. */
    readonly daemon: HelloFrame,
  ) {
    conn.onFrame((raw) => {
      const f = parseDaemonFrame(raw);
      if (f) this.onFrame(f);
      else log.error(`the daemon sent a malformed ${rawFrameType(raw)} frame; ignored`);
    });
    conn.onClose(() => this.onClosed());
    conn.onProtocolError((err) => log.error(`daemon sent garbage: ${err.message}`));
  }

  /** Attach stream: the session's terminal bytes. */
  onOutput(listener: (bytes: Uint8Array) => void): () => void {
    return this.outputs.on(listener);
  }

  /** Attach stream: the session's end. */
  onExit(listener: (frame: ExitFrame) => void): () => void {
    return this.exits.on(listener);
  }

  /** Session events, after a `subscribeEvents` control call. */
  onEvent(listener: (event: HostEvent) => void): () => void {
    return this.events.on(listener);
  }

  get closed(): boolean {
    return this.conn.closed;
  }

  /** Connects to the daemon's Unix socket. */
  static connect(opts: ConnectOptions): Promise<DaemonClient> {
    return DaemonClient.handshake(opts, opts.socket, (h) => {
      let conn: Conn | null = null;
      Bun.connect({
        unix: opts.socket,
        socket: {
          open(socket) {
            conn = h.opened(socket);
          },
          data(_socket, data) {
            conn?.data(data);
          },
          drain() {
            conn?.drain();
          },
          close() {
            conn?.closedBySocket();
          },
          error(_socket, err) {
            log.debug(`daemon socket error: ${err.message}`);
          },
        },
      }).catch((err: NodeJS.ErrnoException) => {
        const code = err.code ?? "";
        if (code === "ENOENT")
          h.fail(new DaemonConnectError("absent", "no ptyhub daemon is running", "term_open starts one."));
        else if (code === "ECONNREFUSED")
          h.fail(
            new DaemonConnectError(
              "stale",
              "the ptyhub daemon is not running (its socket is left over: it died)",
              "term_open starts a new one.",
            ),
          );
        else if (code === "EACCES" || code === "EPERM")
          h.fail(
            new DaemonConnectError(
              "denied",
              `permission denied on the daemon socket ${opts.socket}`,
              "The socket belongs to another user; set PTYHUB_SOCKET to a socket path in a directory you own.",
            ),
          );
        else
          h.fail(
            new DaemonConnectError(
              "absent",
              `cannot connect to the ptyhub daemon: ${err.message}`,
              "term_open starts one.",
            ),
          );
      });
    });
  }

  /**
   * Speaks the daemon protocol over any duplex byte stream that reaches a daemon (a pipe to a
   * process relaying to the socket, an SSH exec channel), not only the socket itself.
   */
  static overStream(stream: DuplexStream, opts: StreamConnectOptions): Promise<DaemonClient> {
    return DaemonClient.handshake(opts, opts.label, (h) => {
      const channel = new StreamChannel(stream);
      const conn = h.opened(channel);
      void channel.pump(conn);
    });
  }

  /**
   * Speaks the daemon protocol over a byte channel the caller feeds (an SSH exec channel to a
   * remote `ptyhub bridge`): `wire` gets the Conn to pass incoming bytes and the close to.
   */
  static overChannel(
    channel: ByteChannel,
    opts: StreamConnectOptions,
    wire: (conn: Conn) => void,
  ): Promise<DaemonClient> {
    return DaemonClient.handshake(opts, opts.label, (h) => wire(h.opened(channel)));
  }

  /**
   * The hello exchange, whatever carries it: `start` opens the byte channel and hands it to
   * `opened` (or reports `fail`); the promise settles with a client, or the reason there is none.
   */
  private static handshake(
    opts: HandshakeOptions,
    where: string,
    start: (h: HandshakeEnds) => void,
  ): Promise<DaemonClient> {
    const protocol = opts.protocol ?? PROTOCOL;
    let key: Buffer | null;
    try {
      key = opts.key ? loadOrCreateKey(opts.key) : null;
    } catch (err) {
      if (err instanceof AppError) return Promise.reject(new DaemonConnectError("denied", err.message, err.hint));
      return Promise.reject(
        new DaemonConnectError(
          "denied",
          `cannot read or create the daemon's key file ${opts.key}: ${(err as Error).message}`,
          "Its directory must be yours and writable (it is under XDG_STATE_HOME, or your profile).",
        ),
      );
    }
    /** Our challenge to the daemon, when it must prove the key (pipe-auth.ts). */
    const ours = key ? newChallenge() : null;
    return new Promise<DaemonClient>((resolve, reject) => {
      let conn: Conn | null = null;
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      /** The daemon's hello, once it came, while its proof of the key is awaited. */
      let unproven: HelloFrame | null = null;
      const fail = (err: DaemonConnectError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        conn?.terminate();
        reject(err);
      };
      const impostor = (why: string) =>
        fail(
          new DaemonConnectError(
            "impostor",
            `the process serving ${where} is not your ptyhub daemon: ${why}, so it got nothing but our hello`,
            "Another user's program may have taken the pipe's name first: end it, or set PTYHUB_SOCKET to " +
              String.raw`another pipe name (\\.\pipe\...) for every ptyhub. If it is your own daemon, started ` +
              `with another XDG_STATE_HOME (its key is not ${opts.key}), give every ptyhub the same one.`,
          ),
        );
      /** The handshake's own listeners, removed once the client takes the connection over. */
      const offHandshake: Array<() => void> = [];
      const ready = (hello: HelloFrame) => {
        if (!conn)
          return fail(
            new DaemonConnectError("closed", "the connection to the daemon went away during the handshake", "Retry."),
          );
        settled = true;
        clearTimeout(timer);
        for (const off of offHandshake) off();
        resolve(new DaemonClient(conn, hello));
      };
      const onHandshake = (raw: unknown) => {
        if (settled) return;
        const f = parseDaemonFrame(raw);
        if (f?.type === "fatal") {
          const e = errorFromWire(f.error);
          return fail(
            new DaemonConnectError("refused", `the ptyhub daemon refused the connection: ${e.message}`, e.hint),
          );
        }
        if (unproven && key && ours) {
          if (f?.type !== "auth") return impostor(`it sent ${rawFrameType(raw)} instead of its proof of your key`);
          const theirs = unproven.challenge ?? "";
          if (!checkProof(key, "daemon", theirs, ours, f.proof)) return impostor("its proof of your key is wrong");
          conn?.send({ type: "auth", proof: proveKey(key, "client", theirs, ours) });
          return ready(unproven);
        }
        if (f?.type !== "hello")
          return fail(
            new DaemonConnectError(
              "incompatible",
              `the process on ${where} does not speak the ptyhub protocol`,
              "Remove the socket if nothing should be there.",
            ),
          );
        const hello = f;
        if (hello.protocol !== protocol) {
          return fail(
            new DaemonConnectError(
              "incompatible",
              `the running ptyhub daemon (pid ${hello.pid}, version ${hello.version}) speaks protocol ` +
                `${hello.protocol}; this ptyhub (version ${VERSION}) speaks protocol ${protocol}`,
              "Stop it with `ptyhub daemon --stop` (this ends the sessions it hosts), then retry; or keep using the " +
                "ptyhub version that started it.",
              typeof hello.pid === "number" ? hello.pid : null,
            ),
          );
        }
        if (key) {
          if (hello.challenge === undefined) return impostor("it offered no challenge to prove your key against");
          unproven = hello;
          return;
        }
        ready(hello);
      };
      timer = setTimeout(
        () =>
          fail(
            new DaemonConnectError(
              "timeout",
              `the ptyhub daemon on ${where} did not answer within ${opts.helloTimeoutMs ?? HELLO_TIMEOUT_MS} ms`,
              "Check `ptyhub daemon --status` and its log; `ptyhub daemon --stop` restarts it on next use.",
            ),
          ),
        opts.helloTimeoutMs ?? HELLO_TIMEOUT_MS,
      );
      start({
        opened(channel) {
          const c = new Conn(channel);
          conn = c;
          offHandshake.push(c.onFrame(onHandshake));
          offHandshake.push(
            c.onClose(() =>
              fail(
                new DaemonConnectError(
                  "closed",
                  "the ptyhub daemon closed the connection during the handshake (it was exiting)",
                  "Retry: a new daemon starts on demand.",
                ),
              ),
            ),
          );
          c.send({
            type: "hello",
            protocol,
            version: VERSION,
            pid: process.pid,
            role: opts.role,
            ...(ours ? { challenge: ours } : {}),
          });
          return c;
        },
        fail,
      });
    });
  }

  /**
   * Calls a host API method (src/api/table.ts): the result is checked against the method's output
   * schema, so what reaches the caller is what the table promises.
   */
  async invoke<M extends HostMethod>(method: M, params: HostParams<M>, ctx?: CallContext): Promise<HostResult<M>> {
    return parseHostResult(method, await this.request(method, params, ctx), "the daemon");
  }

  /** Calls one of the daemon's own methods (src/daemon-client/control-table.ts), its result checked likewise. */
  async control<M extends ControlMethod>(
    method: M,
    params: ControlParams<M>,
    ctx?: CallContext,
  ): Promise<ControlResult<M>> {
    return parseControlResult(method, await this.request(method, params, ctx));
  }

  /**
   * One call frame and its answer, unchecked (`invoke` and `control` check it): for probing the
   * daemon's own checks. Rejects with the daemon's AppError, or DAEMON_UNAVAILABLE.
   */
  request(method: string, params: unknown, ctx?: CallContext): Promise<unknown> {
    if (this.conn.closed) return Promise.reject(this.goneError());
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const signal = ctx?.signal;
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.conn.send({ type: "cancel", id });
        reject(new CancelledError());
      };
      this.pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(v);
        },
        reject: (e) => {
          signal?.removeEventListener("abort", onAbort);
          reject(e);
        },
        elicit: ctx?.elicit,
        delivered: ctx?.delivered,
      });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort);
      this.conn.send({
        type: "call",
        id,
        method,
        params: params ?? {},
        ctx: {
          clientId: ctx?.clientId ?? `${method}:${process.pid}`,
          elicit: !!ctx?.elicit,
        },
      });
    });
  }

  /** Sends a stream frame (attach input, resize, detach). */
  send(frame: ClientFrame): boolean {
    return this.conn.send(frame);
  }

  onClose(listener: () => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  close(): void {
    this.conn.close();
  }

  private goneError(): AppError {
    return new AppError(
      "DAEMON_UNAVAILABLE",
      `the ptyhub daemon (pid ${this.daemon.pid}) went away; the sessions it hosted are gone`,
      "term_open starts a new daemon and session.",
      false,
    );
  }

  private onFrame(f: DaemonFrame): void {
    switch (f.type) {
      case "result":
      case "error": {
        const p = this.pending.get(f.id);
        if (!p) return; // Cancelled meanwhile.
        this.pending.delete(f.id);
        if (f.type === "result") {
          p.resolve(f.result);
          if (f.ack) this.acknowledge(f.id, p.delivered);
        } else p.reject(errorFromWire(f.error));
        return;
      }
      case "elicit":
        void this.answerElicit(f);
        return;
      case "event":
        this.events.emit(f.event);
        return;
      case "output":
        this.outputs.emit(fromBase64(f.data));
        return;
      case "exit":
        this.exits.emit(f);
        return;
      case "fatal":
        log.error(`daemon: ${f.error.message}`);
        return;
      default:
        return;
    }
  }

  /**
   * Tells the daemon a result reached our client, so the read cursor it moved can commit: once
   * the result is written out to the MCP client (`delivered`), or now when nothing reports that.
   */
  private acknowledge(id: number, delivered: Promise<void> | undefined): void {
    const ack = () => void this.conn.send({ type: "ack", id });
    if (delivered) delivered.then(ack, () => undefined);
    else ack();
  }

  private async answerElicit(f: ElicitFrame): Promise<void> {
    const elicit = this.pending.get(f.call)?.elicit;
    if (!elicit) {
      this.conn.send({
        type: "elicit_result",
        id: f.id,
        error: new AppError(
          "ELICITATION_UNSUPPORTED",
          "this MCP client cannot ask the human for input",
          "Ask the human to use `ptyhub attach`.",
        ).toPayload(),
      });
      return;
    }
    try {
      const result = await elicit(f.message, f.schema, { secret: f.secret === true });
      this.conn.send({ type: "elicit_result", id: f.id, result });
    } catch (err) {
      const e =
        err instanceof AppError
          ? err
          : new AppError("ELICITATION_UNSUPPORTED", `elicitation failed: ${(err as Error).message}`, "");
      this.conn.send({ type: "elicit_result", id: f.id, error: e.toPayload() });
    }
  }

  private onClosed(): void {
    const err = this.goneError();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(err);
    for (const l of this.closeListeners) {
      try {
        l();
      } catch (e) {
        log.error("close listener failed", e);
      }
    }
  }
}
