/**
 * A duplex web stream (a child process's stdout/stdin, an SSH exec channel adapted to streams) as
 * the ByteChannel a Conn runs on, so the daemon protocol is not tied to the Unix socket: a remote
 * peer can reach a daemon through whatever relays bytes to its socket.
 */
import type { ByteChannel, Conn } from "./conn.ts";
import { logger } from "../log.ts";

const log = logger("stream-channel");

export interface DuplexStream {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

// The runtime's own reader type (lib.dom's and node's declarations of it differ).
const readerOf = (readable: ReadableStream<Uint8Array>) => readable.getReader();
type StreamReader = ReturnType<typeof readerOf>;
type StreamWriter = ReturnType<WritableStream<Uint8Array>["getWriter"]>;

export class StreamChannel implements ByteChannel {
  private readonly writer: StreamWriter;
  private readonly reader: StreamReader;
  private open = true;

  constructor(stream: DuplexStream) {
    this.writer = stream.writable.getWriter();
    this.reader = readerOf(stream.readable);
  }

  /** The stream queues what it is given (its own backpressure), so every byte is taken. */
  write(bytes: Uint8Array): number {
    if (!this.open) return -1;
    this.writer.write(bytes.slice()).catch((err) => this.failed(err));
    return bytes.length;
  }

  end(): void {
    this.shutdown();
  }

  shutdown(): void {
    if (!this.open) return;
    this.open = false;
    this.writer.close().catch(() => undefined);
  }

  terminate(): void {
    this.open = false;
    this.writer.abort().catch(() => undefined);
    this.reader.cancel().catch(() => undefined);
  }

  /** Feeds everything read to `conn` until the stream ends, then tells it the connection closed. */
  async pump(conn: Conn): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.reader.read();
        if (done) break;
        conn.data(value);
      }
    } catch (err) {
      log.debug(`stream read failed: ${String(err)}`);
    }
    this.open = false;
    conn.closedBySocket();
  }

  private failed(err: unknown): void {
    log.debug(`stream write failed: ${String(err)}`);
    this.terminate();
  }
}
