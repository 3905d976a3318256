/**
 * The backend of a persistent remote session: the shell lives in the remote host's ptyhub daemon,
 * and this backend is attached to it through a RemoteLink, receiving its raw bytes from a byte
 * offset. When the link drops, the remote shell keeps running; this backend reconnects with
 * backoff and reattaches at the offset it had reached, so what the remote printed meanwhile (marks
 * and exit codes included) arrives exactly once. While it reconnects, `connectionState()` says so
 * (the session's state is `reconnecting`) and input fails with a retryable error (SSH_CONNECT_FAILED,
 * CONTAINER_UNAVAILABLE: the reach's).
 */
import { AppError, type ErrorCode } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { fromBase64, toBase64, type ExitFrame } from "../../daemon-client/protocol.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import type { BackendKind } from "../../api/kinds.ts";
import { BackendSinks, type Backend, type CloseSignal, type ExitInfo, type TtyModes } from "../backend.ts";
import type { RemoteLink } from "./bridge-link.ts";
import type { AttachReply } from "../../daemon-client/control-table.ts";

const log = logger("remote");

/** First delay before reconnecting, and the cap of its doubling: quick after a blip, gentle when down. */
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5000;
/**
 * How long to keep trying before this session gives up (the remote shell keeps running and can be
 * resumed). Long enough for a laptop's sleep or a network change.
 */
const RECONNECT_GIVE_UP_MS = 15 * 60_000;
/** How long term_close waits to reach the remote daemon when the link is down. */
const CLOSE_REACH_MS = 10_000;

/** What the remote daemon answers to an attach with `since` (see DaemonServer.attach). */
export interface RawAttachReply {
  session: string;
  cols: number;
  rows: number;
  exited: boolean;
  offset: number;
  replay: string;
  nonce: string;
  integration: Integration;
  family: ShellFamily | null;
}

/** Who calls the remote daemon: its per-reader state is keyed by this (we read raw bytes, not cursors). */
const CALLER = { clientId: `remote:${process.pid}` };

/**
 * How a persistent session reaches its far side's daemon again (an SSH host, a container), and
 * how it speaks of that side in errors.
 */
export interface LinkReach {
  kind: BackendKind;
  /** The host or container, for messages until a link names it. */
  where: string;
  /** A new link; null when no daemon runs there any more (see openLink). */
  open(opts: { start: false; upload: boolean }): Promise<RemoteLink | null>;
  /** What a human does to resume remote session `id` after ptyhub gave up reconnecting. */
  resumeHint(id: string): string;
  /** The error code of "the link is down, retry" (retryable). */
  downCode: ErrorCode;
}

export class RemotePersistBackend implements Backend {
  readonly kind: BackendKind;
  readonly pid = null;
  private readonly sinks = new BackendSinks();
  private link: RemoteLink | null = null;
  /** Told when the link drops or comes back, so waits on the session's state wake up. */
  private connectionListener: (() => void) | null = null;
  /** Bytes of the remote session's output received so far: where a reattach resumes. */
  private offset = 0;
  private exitInfo: ExitInfo | null = null;
  private closeRequested = false;
  private closing: Promise<ExitInfo> | null = null;
  private readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor(
    private readonly reach: LinkReach,
    /** The session's id in the remote daemon. */
    readonly remoteId: string,
    private cols: number,
    private rows: number,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.kind = reach.kind;
  }

  get target(): string {
    return this.link?.target ?? this.reach.where;
  }

  /** "reconnecting" while the link to the host is down and being replaced, else null. */
  connectionState(): "reconnecting" | null {
    return this.link || this.exitInfo ? null : "reconnecting";
  }

  onConnectionChange(listener: () => void): void {
    this.connectionListener = listener;
  }

  /** Attaches over `link` from the current offset; the link is ours from then on. */
  async attach(link: RemoteLink): Promise<RawAttachReply> {
    const held: Array<Uint8Array | ExitFrame> = [];
    let holding = true;
    // Frames after the reply may be handled before our continuation runs: hold them until the replay is in.
    link.client.onOutput((bytes) => (holding ? held.push(bytes) : this.receive(bytes)));
    link.client.onExit((frame) => (holding ? held.push(frame) : this.remoteExited(frame)));
    const params = { session: this.remoteId, since: this.offset, cols: this.cols, rows: this.rows, resize: true };
    const r = rawReply(await link.client.control("attach", params, CALLER));
    if (r.offset > this.offset) {
      const lost = r.offset - this.offset;
      log.warn(`${this.remoteId}: ${lost} bytes of output fell out of the remote host's replay log while disconnected`);
    }
    this.offset = r.offset;
    this.receive(fromBase64(r.replay));
    holding = false;
    for (const h of held) {
      if (h instanceof Uint8Array) this.receive(h);
      else this.remoteExited(h);
    }
    this.link = link;
    link.onLost(() => this.linkLost(link));
    this.connectionListener?.();
    return r;
  }

  onData(sink: (data: Uint8Array) => void): void {
    this.sinks.onData(sink);
  }

  onExit(sink: (info: ExitInfo) => void): void {
    this.sinks.onExit(sink);
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo) return;
    if (!this.link) {
      throw new AppError(
        this.reach.downCode,
        `the connection to ${this.target} dropped; ptyhub is reconnecting ` +
          `(remote session '${this.remoteId}' keeps running there)`,
        "Retry in a few seconds; term_read meanwhile returns what already arrived, the rest follows once reconnected.",
        true,
      );
    }
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.link.client.send({ type: "input", data: toBase64(bytes) });
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    if (!this.exitInfo) this.link?.client.send({ type: "resize", cols, rows });
  }

  ttyModes(): TtyModes | null {
    return null;
  }

  /** Ends the remote shell (term_close): reaching the remote daemon again first if the link is down. */
  close(signal?: CloseSignal): Promise<ExitInfo> {
    if (this.closing) return this.closing;
    this.closeRequested = true;
    this.closing = (async () => {
      if (this.exitInfo) {
        this.link?.close();
        return this.exitInfo;
      }
      let link = this.link;
      if (!link) {
        const reach = this.reach.open({ start: false, upload: false }).catch(() => null);
        link = await Promise.race([reach, Bun.sleep(CLOSE_REACH_MS).then(() => null)]);
      }
      let exitCode: number | null = null;
      let reason = `closed; the remote session '${this.remoteId}' could not be reached and may still run there`;
      if (link) {
        try {
          const params = { session: this.remoteId, signal };
          const r = await link.client.invoke("close", params, CALLER);
          exitCode = r.exit_code;
          reason = "closed (the remote shell ended)";
        } catch (err) {
          reason = `closed; ending the remote session failed: ${(err as Error).message}`;
        }
        link.close();
      }
      this.finish({ exitCode, signal: null, reason });
      return this.exitInfo!;
    })();
    return this.closing;
  }

  /** The local host shuts down: the remote shell keeps running, resumable with ssh.resume. */
  async detach(): Promise<ExitInfo> {
    this.closeRequested = true;
    const resume = this.reach.resumeHint(this.remoteId);
    const reason = `detached; remote session '${this.remoteId}' keeps running on ${this.target} (${resume})`;
    this.link?.close();
    this.link = null;
    this.finish({ exitCode: null, signal: null, reason });
    return this.exitInfo!;
  }

  private receive(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.offset += bytes.length;
    this.sinks.data(bytes);
  }

  /** The remote shell ended by itself: report it (after its last bytes) and tidy the remote side. */
  private remoteExited(frame: ExitFrame): void {
    if (this.exitInfo) return;
    this.finish({ exitCode: frame.exit_code, signal: null, reason: frame.reason });
    const link = this.link;
    if (!link || this.closeRequested) return;
    link.client
      .invoke("close", { session: this.remoteId }, CALLER)
      .catch(() => undefined)
      .finally(() => link.close());
  }

  /** The session is over for us, for a reason other than the program's own exit. */
  private ended(reason: string): void {
    this.finish({ exitCode: null, signal: null, reason });
  }

  private finish(info: ExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    this.sinks.exited(info);
    this.resolveExited(info);
  }

  private linkLost(link: RemoteLink): void {
    if (this.link !== link) return;
    this.link = null;
    link.close();
    if (this.exitInfo || this.closeRequested) return;
    this.connectionListener?.();
    log.warn(`${this.remoteId}: the link to ${link.target} dropped; reconnecting`);
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    const started = Date.now();
    let delay = RECONNECT_FIRST_MS;
    let lastError = "";
    while (!this.exitInfo && !this.closeRequested) {
      try {
        const link = await this.reach.open({ start: false, upload: true });
        if (!link) {
          const gone = `the remote ptyhub daemon on ${this.target} is gone (stopped or killed)`;
          this.ended(`${gone}, and session '${this.remoteId}' with it`);
          return;
        }
        if (this.closeRequested) {
          link.close();
          return;
        }
        try {
          await this.attach(link);
          log.info(`${this.remoteId}: reattached at byte ${this.offset} after ${Date.now() - started} ms`);
          return;
        } catch (err) {
          link.close();
          if (err instanceof AppError && err.code === "SESSION_NOT_FOUND") {
            this.ended(`remote session '${this.remoteId}' no longer exists on ${this.target} (closed, or reaped idle)`);
            return;
          }
          throw err;
        }
      } catch (err) {
        lastError = (err as Error).message;
        log.info(`${this.remoteId}: reconnecting failed: ${lastError}`);
      }
      if (Date.now() - started > RECONNECT_GIVE_UP_MS) {
        this.ended(
          `connection lost (${lastError}); gave up reconnecting — remote session '${this.remoteId}' keeps running: ` +
            this.reach.resumeHint(this.remoteId),
        );
        return;
      }
      await Bun.sleep(delay);
      delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    }
  }
}

/** An attach reply with the raw fields a `since` attach carries; a daemon that left them out is a version skew. */
function rawReply(r: AttachReply): RawAttachReply {
  const { offset, replay, nonce, integration, family } = r;
  if (offset === undefined || replay === undefined || nonce === undefined || integration === undefined)
    throw new AppError(
      "INTERNAL",
      "the remote daemon answered a raw attach without its bytes",
      "The remote ptyhub may be an older build: close the session and open it again.",
    );
  return {
    session: r.session,
    cols: r.cols,
    rows: r.rows,
    exited: r.exited,
    offset,
    replay,
    nonce,
    integration,
    family: family ?? null,
  };
}
