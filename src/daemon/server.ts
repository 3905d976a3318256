/**
 * The daemon's socket server (tmux's server role). It hosts sessions with the very same LocalHost
 * the MCP server uses in-process, and serves the SessionHost methods as calls over the socket, to
 * any number of clients at once: MCP servers (each with its own read cursors, by clientId) and
 * humans attached with `ptyhub attach`.
 *
 * Guarantees:
 * - One daemon per socket: it holds `daemon.lock` (flock) for its whole life, and only the lock's
 *   holder may remove a leftover socket and bind a new one.
 * - Only our own user: the socket is in a 0700 directory and is itself 0600, and each peer's uid
 *   (SO_PEERCRED / getpeereid) is checked; another uid gets a `fatal` frame and is disconnected.
 *   On Windows the daemon listens on a named pipe (daemon-paths.ts). Bun is given no security
 *   descriptor for it, so (as with libuv's uv_pipe_bind; not verified on real Windows yet) the
 *   default one applies: full control for the creator owner, LocalSystem and Administrators, only
 *   read access for Everyone, so another user cannot open it for writing to speak the protocol.
 *   There is no peer uid to check (Bun's socket API offers no documented way to the pipe's HANDLE):
 *   instead each client proves it holds the user's key before its first call, and the daemon proves
 *   it to the client, so neither end can be another user's program (pipe-auth.ts).
 * - Input is serialized per session: each client write (a tool's whole text, or an attached
 *   human's keystrokes) reaches the PTY as one write from this single-threaded loop, so writes from
 *   different clients never interleave inside each other.
 * - A session ends only by term_close/`ptyhub kill`, its own exit, idle expiry or daemon stop;
 *   never because a client went away (a client's pending calls are just cancelled).
 * - With no session and no client for `idleMs`, the daemon exits by itself.
 */
import { chmodSync, statSync, unlinkSync } from "node:fs";
import type { Socket } from "bun";
import { AppError, toAppError } from "../api/errors.ts";
import { VERSION } from "../version.ts";
import { logger } from "../log.ts";
import type { LocalHost } from "../host/local-host.ts";
import type { CallContext } from "../api/host.ts";
import { DeliveryTicket, withTicket } from "../session/delivery.ts";
import { Conn } from "../daemon-client/conn.ts";
import { DaemonClient, DaemonConnectError } from "../daemon-client/client.ts";
import { peerPid, peerUid, tryLock, type Lock } from "../daemon-client/native.ts";
import { hostingSession } from "./peer-origin.ts";
import { isNamedPipe } from "../daemon-client/daemon-paths.ts";
import { checkProof, loadOrCreateKey, newChallenge, proveKey } from "../daemon-client/pipe-auth.ts";
import type { DaemonPaths } from "../daemon-client/daemon-paths.ts";
import { ReplayLogs } from "./replay-log.ts";
import { attachClient, detachClient, resizeFromHuman } from "./attach-stream.ts";
import { askClient, remember, sendFatal, type Client, type KeyCheck } from "./connected-client.ts";
import { insideSessionError, unprovenClientError } from "./refusals.ts";
import { isHostMethod } from "../api/table.ts";
import {
  PROTOCOL,
  errorFromWire,
  fromBase64,
  parseClientFrame,
  rawFrameType,
  type CallFrame,
  type ClientFrame,
} from "../daemon-client/protocol.ts";
import { isControlMethod, parseControlParams, type DaemonStatus } from "../daemon-client/control-table.ts";

const log = logger("daemon");

/** How long a starting daemon waits for a previous one (still closing its sessions) to let go. */
const LOCK_WAIT_MS = 8000;
const LOCK_POLL_MS = 50;
/** How often the daemon checks its idle time and that its socket is still there. */
export const WATCH_MS = 1000;
/** Upper bound on closing the sessions at stop before they are killed outright. */
const STOP_GRACE_MS = 5000;
/**
 * How long a client on a named pipe has to prove the user's key (pipe-auth.ts): ours answers within
 * one round trip; one that never does would otherwise hold a connection, and keep the daemon from
 * its idle exit, for ever.
 */
const KEY_PROOF_TIMEOUT_MS = 10_000;
/** How long a starting daemon waits for whatever already serves its pipe's name to say hello. */
const PIPE_PROBE_TIMEOUT_MS = 2000;

/** The daemon's sessions live in a LocalHost, as in-process ones do (the host API is applied to it). */
export type HostedSessions = LocalHost;

export interface DaemonServerOptions {
  paths: DaemonPaths;
  /** Exit after this long with no session and no client (0: never). */
  idleMs: number;
  /** Called once the daemon has stopped (the process should exit). */
  onStopped?: () => void;
  /** How long a client has to prove the user's key, where it must (tests shorten it). */
  keyProofTimeoutMs?: number;
  /** The fingerprint of the settings it runs with, for `status` (clients compare it with theirs). */
  configFingerprint?: string;
}

export class DaemonServer {
  readonly startedAt = Date.now();
  private listener: ReturnType<typeof Bun.listen> | null = null;
  private lock: Lock | null = null;
  private readonly clients = new Set<Client>();
  private nextSerial = 1;
  private nextElicit = 1;
  private idleTimer: ReturnType<typeof setInterval> | null = null;
  private idleSince: number | null = null;
  private socketIno: number | null = null;
  private stopping: Promise<void> | null = null;
  private readonly myUid = typeof process.getuid === "function" ? process.getuid() : -1;
  /** Raw output of every session, for remote ptyhubs reattaching at a byte offset (`since`). */
  private readonly replay: ReplayLogs;

  constructor(
    readonly host: HostedSessions,
    private readonly opts: DaemonServerOptions,
  ) {
    this.replay = new ReplayLogs(host);
  }

  /**
   * Takes the daemon lock and binds the socket. "running" when another daemon already serves
   * this socket (then nothing was started).
   */
  async start(): Promise<"started" | "running"> {
    const { paths } = this.opts;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      this.lock = tryLock(paths.daemonLock);
      if (this.lock) break;
      // A daemon holds the lock. If it answers, it is serving: we are not needed.
      try {
        const c = await DaemonClient.connect({
          socket: paths.socket,
          role: "daemon-probe",
          helloTimeoutMs: 1000,
          key: paths.key,
        });
        c.close();
        return "running";
      } catch (err) {
        // An impostor answered (pipe-auth.ts): not our daemon, so the lock's holder did not.
        const answered = err instanceof DaemonConnectError && !err.notRunning;
        if (answered && err.kind !== "timeout" && err.kind !== "impostor") return "running";
      }
      // It does not answer: it is on its way out (closing its sessions). Wait for it.
      if (Date.now() > deadline) {
        throw new AppError(
          "DAEMON_UNAVAILABLE",
          `another ptyhub daemon holds ${paths.daemonLock} but does not answer`,
          "Find it with `pgrep -f 'ptyhub.*daemon'` and end it.",
          false,
        );
      }
      await Bun.sleep(LOCK_POLL_MS);
    }
    // A pipe is no file: it ends with the process that made it, and its rights are its DACL's.
    const pipe = isNamedPipe(paths.socket);
    if (pipe) await this.refuseTakenPipe();
    // We hold the lock, so a socket file left here belongs to a dead daemon.
    try {
      if (!pipe) unlinkSync(paths.socket);
    } catch {
      // None.
    }
    const oldMask = process.umask(0o177);
    try {
      this.listener = Bun.listen<Client | undefined>({
        unix: paths.socket,
        socket: {
          open: (socket) => this.onOpen(socket),
          data: (socket, data) => socket.data?.conn.data(data),
          drain: (socket) => socket.data?.conn.drain(),
          close: (socket) => socket.data?.conn.closedBySocket(),
          error: (_socket, err) => log.warn(`client socket error: ${err.message}`),
        },
      });
    } catch (err) {
      this.lock.release();
      throw new AppError(
        "DAEMON_UNAVAILABLE",
        `cannot listen on ${paths.socket}: ${(err as Error).message}`,
        "Check the runtime directory's permissions.",
        false,
      );
    } finally {
      process.umask(oldMask);
    }
    // umask made it 0600 already; be explicit in case the platform ignores umask for sockets.
    if (!pipe) {
      chmodSync(paths.socket, 0o600);
      this.socketIno = statSync(paths.socket).ino;
    }
    const every = this.opts.idleMs > 0 ? Math.max(25, Math.min(WATCH_MS, Math.floor(this.opts.idleMs / 4))) : WATCH_MS;
    this.idleTimer = setInterval(() => this.checkIdle(), every);
    log.info(`daemon ${process.pid} (version ${VERSION}, protocol ${PROTOCOL}) listening on ${paths.socket}`);
    return "started";
  }

  /**
   * We hold the daemon lock, so whatever serves our pipe's name now is not our daemon: another
   * user's program that took it first. Bun's listen does not refuse a name already served (as
   * FILE_FLAG_FIRST_PIPE_INSTANCE would): where the squatter's DACL allows, it succeeds as a second
   * instance of the name (seen under Wine), and each client would meet one instance or the other.
   * Refuse to start instead.
   */
  private async refuseTakenPipe(): Promise<void> {
    const { paths } = this.opts;
    try {
      const c = await DaemonClient.connect({
        socket: paths.socket,
        role: "daemon-probe",
        helloTimeoutMs: PIPE_PROBE_TIMEOUT_MS,
        key: paths.key,
      });
      c.close();
    } catch (err) {
      if (err instanceof DaemonConnectError && (err.kind === "absent" || err.kind === "stale")) return;
    }
    this.lock?.release();
    throw new AppError(
      "DAEMON_UNAVAILABLE",
      `another process already serves ${paths.socket}, and it is not this user's ptyhub daemon`,
      "Another user's program may have taken the pipe's name: end it, or set PTYHUB_SOCKET to another " +
        String.raw`pipe name (\\.\pipe\...) for every ptyhub.`,
      false,
    );
  }

  status(): DaemonStatus {
    return {
      pid: process.pid,
      version: VERSION,
      protocol: PROTOCOL,
      started_at: new Date(this.startedAt).toISOString(),
      uptime_ms: Date.now() - this.startedAt,
      sessions: this.host.manager.size,
      attached: [...this.clients].filter((c) => c.attachment).length,
      clients: this.clients.size,
      socket: this.opts.paths.socket,
      log: this.opts.paths.log,
      idle_exit_ms: this.opts.idleMs,
      config: this.opts.configFingerprint,
    };
  }

  /** Stops serving, ends every session, releases the socket and the lock. Idempotent. */
  stop(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      log.info(`stopping: ${reason}`);
      if (this.idleTimer) clearInterval(this.idleTimer);
      this.listener?.stop(false);
      for (const c of this.clients) {
        detachClient(c);
        for (const ac of c.calls.values()) ac.abort();
        c.conn.close();
      }
      // Remove the socket before releasing the lock: after that, the path is the next daemon's.
      try {
        const { socket } = this.opts.paths;
        if (!isNamedPipe(socket) && statSync(socket).ino === this.socketIno) unlinkSync(socket);
      } catch {
        // Already gone.
      }
      const forced = setTimeout(() => this.host.manager.killAllNow(), STOP_GRACE_MS);
      try {
        await this.host.shutdown();
      } catch (err) {
        log.error("closing sessions failed", err);
        this.host.manager.killAllNow();
      } finally {
        clearTimeout(forced);
      }
      this.listener?.stop(true);
      this.lock?.release();
      log.info("stopped");
      this.opts.onStopped?.();
    })();
    return this.stopping;
  }

  private checkIdle(): void {
    if (this.stopping) return;
    if (this.socketGone()) {
      void this.stop(`socket ${this.opts.paths.socket} was removed or replaced`);
      return;
    }
    if (this.opts.idleMs <= 0) return;
    if (this.clients.size > 0 || this.host.manager.size > 0) {
      this.idleSince = null;
      return;
    }
    const now = Date.now();
    if (this.idleSince === null) this.idleSince = now;
    else if (now - this.idleSince >= this.opts.idleMs)
      void this.stop(`idle for ${now - this.idleSince} ms with no session and no client`);
  }

  /**
   * Nobody can reach us without our socket (its directory was removed, say): our sessions are
   * unreachable for good, so the daemon ends them rather than leave them running forever. A named
   * pipe lives as long as our handle on it, and stat-ing one on Windows opens a connection to it
   * (a client that hangs up at once, each time the daemon looked): only a socket file is checked.
   */
  private socketGone(): boolean {
    const { socket } = this.opts.paths;
    if (isNamedPipe(socket)) return false;
    let ino: number | null = null;
    try {
      ino = statSync(socket).ino;
    } catch {
      // Gone.
    }
    return ino !== this.socketIno;
  }

  private onOpen(socket: Socket<Client | undefined>): void {
    const conn = new Conn(socket as Socket<unknown>);
    const client: Client = {
      serial: this.nextSerial++,
      conn,
      hello: null,
      calls: new Map(),
      unacked: new Map(),
      elicits: new Map(),
      attachment: null,
      unsubscribeEvents: null,
      keyCheck: null,
    };
    socket.data = client;
    if (this.stopping) {
      conn.terminate();
      return;
    }
    // Peer credentials: the kernel's word on who connected (not something the peer can claim).
    // Bun's socket has its fd at run time, though its typings leave it out.
    const fd = "fd" in socket && typeof socket.fd === "number" ? socket.fd : undefined;
    const uid = peerUid(fd);
    if (uid !== null && this.myUid >= 0 && uid !== this.myUid) {
      log.warn(`refused a connection from uid ${uid} (this daemon belongs to uid ${this.myUid})`);
      conn.send({
        type: "fatal",
        error: new AppError(
          "DAEMON_UNAVAILABLE",
          `this ptyhub daemon belongs to uid ${this.myUid}; uid ${uid} may not use it`,
          "Each user runs their own daemon.",
          false,
        ).toPayload(),
      });
      conn.hangUp();
      return;
    }
    if (uid === null) log.debug("peer uid unknown (no SO_PEERCRED): relying on socket permissions");
    const inside = this.sessionOfPeer(peerPid(fd));
    if (inside !== null) {
      log.warn(`refused a connection from inside session ${inside}`);
      conn.send({ type: "fatal", error: insideSessionError(inside).toPayload() });
      conn.hangUp();
      return;
    }
    const keyFile = this.opts.paths.key;
    if (keyFile) {
      let key: Buffer;
      try {
        key = loadOrCreateKey(keyFile);
      } catch (err) {
        log.error(`cannot read the key file ${keyFile}`, err);
        conn.send({ type: "fatal", error: toAppError(err).toPayload() });
        conn.hangUp();
        return;
      }
      client.keyCheck = { key, challenge: newChallenge(), clientChallenge: null, proven: false };
      this.expectProof(client, client.keyCheck);
    }
    this.clients.add(client);
    this.idleSince = null;
    conn.onFrame((raw) => {
      const f = parseClientFrame(raw);
      if (f) this.onFrame(client, f);
      else
        sendFatal(
          client,
          new AppError(
            "INVALID_ARGUMENT",
            `malformed ${rawFrameType(raw)} frame`,
            "Speak the ptyhub daemon protocol.",
            false,
          ),
        );
    });
    conn.onClose(() => this.onClientClosed(client));
    conn.onProtocolError((err) => log.warn(`client ${client.serial}: ${err.message}; disconnecting it`));
    conn.send({
      type: "hello",
      protocol: PROTOCOL,
      version: VERSION,
      pid: process.pid,
      role: "daemon",
      ...(client.keyCheck ? { challenge: client.keyCheck.challenge } : {}),
    });
  }

  /** Sends away a client that has not proven the user's key in time (KEY_PROOF_TIMEOUT_MS). */
  private expectProof(c: Client, check: KeyCheck): void {
    const ms = this.opts.keyProofTimeoutMs ?? KEY_PROOF_TIMEOUT_MS;
    const timer = setTimeout(() => {
      if (check.proven || c.conn.closed) return;
      log.warn(`refused client ${c.serial}: no proof of the user's key within ${ms} ms`);
      sendFatal(c, unprovenClientError(this.opts.paths.key ?? "", `this one gave none within ${ms} ms`));
    }, ms);
    timer.unref?.();
    c.conn.onClose(() => clearTimeout(timer));
  }

  /** The session a connecting process runs in (peer-origin.ts), or null: outside, or unknown. */
  private sessionOfPeer(pid: number | null): string | null {
    return pid === null ? null : hostingSession(pid, process.pid, this.host.manager.localLeaders());
  }

  private onClientClosed(c: Client): void {
    this.clients.delete(c);
    detachClient(c);
    c.unsubscribeEvents?.();
    c.unsubscribeEvents = null;
    // Its calls are abandoned, never its sessions: waits end, the programs keep running.
    for (const ac of c.calls.values()) ac.abort();
    c.calls.clear();
    // Never acknowledged: those results may not have arrived, so the cursors stay where they were.
    c.unacked.clear();
    for (const e of c.elicits.values()) e.reject(new AppError("ELICITATION_UNSUPPORTED", "the client went away", ""));
    c.elicits.clear();
    if (c.hello) log.info(`client ${c.serial} (${c.hello.role}, pid ${c.hello.pid}) disconnected`);
  }

  private onFrame(c: Client, f: ClientFrame): void {
    if (!c.hello) {
      if (f.type !== "hello") {
        sendFatal(
          c,
          new AppError("INVALID_ARGUMENT", "the first frame must be hello", "Speak the ptyhub daemon protocol.", false),
        );
        return;
      }
      if (f.protocol !== PROTOCOL) {
        log.warn(`refused client pid ${f.pid} (version ${f.version}): protocol ${f.protocol}, ours ${PROTOCOL}`);
        sendFatal(
          c,
          new AppError(
            "DAEMON_UNAVAILABLE",
            `protocol mismatch: this ptyhub daemon (pid ${process.pid}, version ${VERSION}) speaks protocol ` +
              `${PROTOCOL}, the client (version ${f.version}) speaks ${f.protocol}`,
            "Stop the daemon with `ptyhub daemon --stop` (this ends its sessions), or use the ptyhub version that " +
              "started it.",
            false,
          ),
        );
        return;
      }
      const check = c.keyCheck;
      if (check) {
        if (f.challenge === undefined) {
          log.warn(`refused client pid ${f.pid} (version ${f.version}): it offered no challenge for the key proof`);
          sendFatal(c, unprovenClientError(this.opts.paths.key ?? "", "this one offered no challenge"));
          return;
        }
        check.clientChallenge = f.challenge;
        c.conn.send({ type: "auth", proof: proveKey(check.key, "daemon", check.challenge, f.challenge) });
      }
      c.hello = f;
      log.info(`client ${c.serial} connected: ${f.role}, pid ${f.pid}, version ${f.version}`);
      return;
    }
    const check = c.keyCheck;
    if (check && !check.proven) {
      const proven =
        f.type === "auth" && checkProof(check.key, "client", check.challenge, check.clientChallenge ?? "", f.proof);
      if (!proven) {
        log.warn(`refused client ${c.serial} (pid ${c.hello.pid}): no valid proof of the user's key`);
        const why = f.type === "auth" ? "this one's proof is wrong" : `this one sent ${f.type} before its proof`;
        sendFatal(c, unprovenClientError(this.opts.paths.key ?? "", why));
        return;
      }
      check.proven = true;
      return;
    }
    switch (f.type) {
      case "call":
        if (f.method === "attach") attachClient(c, f, this.host, this.replay);
        else void this.dispatch(c, f);
        return;
      case "cancel":
        c.calls.get(f.id)?.abort();
        return;
      case "ack":
        c.unacked.get(f.id)?.confirm();
        c.unacked.delete(f.id);
        return;
      case "elicit_result": {
        const e = c.elicits.get(f.id);
        if (!e) return;
        c.elicits.delete(f.id);
        if (f.result) e.resolve(f.result);
        else e.reject(f.error ? errorFromWire(f.error) : new AppError("INTERNAL", "empty elicitation answer", ""));
        return;
      }
      case "input": {
        const s = c.attachment?.session;
        if (c.attachment && s && !s.exit) {
          const data = fromBase64(f.data);
          this.host.recordHumanInput(s, data, c.attachment.via);
          s.write(data);
        }
        return;
      }
      case "resize":
        resizeFromHuman(c, f);
        return;
      case "detach":
        detachClient(c);
        return;
      default:
        return;
    }
  }

  private async dispatch(c: Client, f: CallFrame): Promise<void> {
    const ac = new AbortController();
    c.calls.set(f.id, ac);
    const ctx: CallContext = {
      clientId: typeof f.ctx?.clientId === "string" && f.ctx.clientId ? f.ctx.clientId : `client-${c.serial}`,
      signal: ac.signal,
      elicit: f.ctx?.elicit
        ? (message, schema, options) =>
            askClient(c, this.nextElicit++, { call: f.id, signal: ac.signal, message, schema, secret: options?.secret })
        : undefined,
    };
    // Cursors the call moves commit when the client acknowledges the result (delivery.ts).
    const ticket = new DeliveryTicket();
    try {
      const result = await withTicket(ticket, () => this.invoke(f.method, f.params ?? {}, ctx, c));
      const ack = ticket.wanted && !c.conn.closed;
      if (ack) remember(c.unacked, f.id, ticket);
      c.conn.send({ type: "result", id: f.id, result: result ?? null, ...(ack ? { ack } : {}) });
    } catch (err) {
      if (!(err instanceof AppError)) log.error(`${f.method} failed`, err);
      c.conn.send({ type: "error", id: f.id, error: toAppError(err).toPayload() });
    } finally {
      c.calls.delete(f.id);
    }
  }

  /** Host API calls (src/api/table.ts), checked against the table; then the daemon's own methods. */
  private async invoke(method: string, params: unknown, ctx: CallContext, c: Client): Promise<unknown> {
    if (isHostMethod(method)) return this.host.apply(method, params, ctx);
    // The daemon's own calls: their params are checked like a host method's (src/daemon-client/control-table.ts).
    if (isControlMethod(method)) parseControlParams(method, params);
    const h = this.host;
    switch (method) {
      case "status":
        return Promise.resolve(this.status());
      case "subscribeEvents":
        // Session lifecycle events, pushed to this client (its MCP resource subscribers).
        if (!c.unsubscribeEvents && h.onSessionEvent)
          c.unsubscribeEvents = h.onSessionEvent((event) => c.conn.send({ type: "event", event }));
        return Promise.resolve({ subscribed: true });
      case "detach": {
        const altScreen = c.attachment?.session.emulator.altScreen ?? false;
        detachClient(c);
        return Promise.resolve({ alt_screen: altScreen });
      }
      case "stop":
        log.info(`stop requested by client ${c.serial} (pid ${c.hello?.pid})`);
        setTimeout(() => void this.stop("requested"), 0);
        return Promise.resolve({ stopping: true, pid: process.pid });
      default:
        return Promise.reject(
          new AppError(
            "INVALID_ARGUMENT",
            `unknown daemon method '${method.slice(0, 40)}'`,
            "The client and daemon versions may differ.",
            false,
          ),
        );
    }
  }
}
