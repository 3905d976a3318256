/**
 * One framed connection over a byte channel (a Bun socket, or any duplex stream adapted to one),
 * used by both ends. Bun's socket.write is non-blocking and may take only part of the bytes
 * (backpressure): the rest is queued and written on `drain`, in order, so a large result or a
 * burst of terminal output is never cut.
 */
import { Emitter } from "../util/emitter.ts";
import { encodeFrame, FrameDecoder, FrameError, type Frame } from "./protocol.ts";

/** A decoded frame, before the protocol's schemas checked it (parseClientFrame / parseDaemonFrame). */
export type RawFrame = unknown;

/** What a Conn needs of the bytes under it; a Bun socket has exactly this shape. */
export interface ByteChannel {
  /** Writes what it can now; returns how many bytes it took (-1: closed). */
  write(bytes: Uint8Array): number;
  /** Ends our side after what was written. */
  end(): void;
  /** Shuts our sending side, still reading. */
  shutdown(): void;
  /** Drops the connection at once. */
  terminate(): void;
}

/** How long a hung-up connection waits for the peer to close before closing it itself. */
const HANG_UP_LINGER_MS = 2000;

export class Conn {
  private readonly decoder = new FrameDecoder();
  private queue: Uint8Array[] = [];
  private queued = 0;
  private endAfterFlush = false;
  private hangingUp = false;
  private afterFlush: (() => void) | null = null;
  closed = false;
  private readonly frames = new Emitter<RawFrame>();
  private readonly closes = new Emitter<void>();
  private readonly protocolErrors = new Emitter<FrameError>();

  constructor(readonly socket: ByteChannel) {}

  /** Each frame as it arrives (decoded, not yet checked against the protocol's schemas). */
  onFrame(listener: (frame: RawFrame) => void): () => void {
    return this.frames.on(listener);
  }

  /** The connection ended (either side). */
  onClose(listener: () => void): () => void {
    return this.closes.on(listener);
  }

  /** The peer sent bytes that are not frames; the connection closes afterwards. */
  onProtocolError(listener: (err: FrameError) => void): () => void {
    return this.protocolErrors.on(listener);
  }

  /** Bytes waiting for the socket to accept them. */
  get backlog(): number {
    return this.queued;
  }

  send(frame: Frame): boolean {
    if (this.closed || this.endAfterFlush) return false;
    const bytes = encodeFrame(frame);
    if (this.queue.length > 0) {
      this.queue.push(bytes);
      this.queued += bytes.length;
      return true;
    }
    const n = this.socket.write(bytes);
    if (n < 0) return false;
    if (n < bytes.length) {
      const rest = bytes.subarray(n);
      this.queue.push(rest);
      this.queued += rest.length;
    }
    return true;
  }

  /** Socket handler: the socket can take more bytes. */
  drain(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const n = this.socket.write(head);
      if (n < 0) return;
      if (n < head.length) {
        this.queue[0] = head.subarray(n);
        this.queued -= n;
        return;
      }
      this.queue.shift();
      this.queued -= head.length;
    }
    if (this.afterFlush) {
      const f = this.afterFlush;
      this.afterFlush = null;
      f();
    }
    if (this.endAfterFlush) this.socket.end();
  }

  /** Socket handler: bytes arrived. */
  data(chunk: Uint8Array): void {
    if (this.closed || this.hangingUp) return;
    let frames: unknown[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.protocolErrors.emit(err instanceof FrameError ? err : new FrameError(String(err)));
      this.close();
      return;
    }
    for (const f of frames) {
      if (this.closed) return;
      this.frames.emit(f);
    }
  }

  /** Socket handler: the connection ended (either side). */
  closedBySocket(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queued = 0;
    this.closes.emit();
  }

  /** Closes once every queued byte is written. */
  close(): void {
    if (this.closed) return;
    if (this.queue.length > 0) {
      this.endAfterFlush = true;
      return;
    }
    this.endAfterFlush = true;
    this.socket.end();
  }

  /**
   * Says goodbye without losing the last words: once everything queued is written, only our
   * sending side is shut (the peer reads our last frame, then end-of-stream) and whatever the peer
   * still sends is discarded. Closing outright with unread input would make the kernel reset the
   * connection, and the peer could lose our last frame.
   */
  hangUp(lingerMs = HANG_UP_LINGER_MS): void {
    if (this.closed || this.hangingUp) return;
    this.hangingUp = true;
    this.frames.clear();
    const shut = () => {
      try {
        this.socket.shutdown();
      } catch {
        // Already closed.
      }
      setTimeout(() => this.close(), lingerMs).unref?.();
    };
    if (this.queue.length === 0) shut();
    else this.afterFlush = shut;
  }

  /** Closes now, dropping whatever is queued. */
  terminate(): void {
    if (this.closed) return;
    this.socket.terminate();
    this.closedBySocket();
  }
}
