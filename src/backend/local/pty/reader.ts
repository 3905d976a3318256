/**
 * Reading a PTY master that may flood without stalling everything else on the event loop.
 *
 * Bun waits for the fd in its own epoll (no polling: idle sessions cost no CPU). Each piece of a
 * chunk is handed to the consumer synchronously (the session parses it right there), and after
 * every piece we yield a whole event-loop turn, so other sessions' fds and timers get their turn.
 * Nothing is read while the consumer is busy or while we yield, so a program that prints faster
 * than we parse fills the kernel's buffer and blocks, as on a real terminal with a slow reader:
 * memory stays bounded whatever it prints.
 *
 * Why every piece: measured with `bun run bench` (load 3–6 on 2 cores), yielding after every chunk
 * gave another session's `echo hi` under a `yes` flood p50 2.8 / p95 15.8 ms, yielding after 2 ms
 * of parsing p50 8.4 / p95 50 ms; the price is throughput (`seq 1 200000` 263 against 204 ms then).
 * A flood that goes on while other sessions are live is also paced (flood-pacer.ts).
 */
import { FloodPacer } from "./flood-pacer.ts";

/**
 * Largest piece handed to the consumer at once. Bun reads until the fd is drained, so one chunk
 * of a flood can be 130 KiB, whose parse held the event loop for up to 38 ms (plain text) or
 * 187 ms (styled, JIT still cold) while another session waited; pieces of this size keep each
 * stretch short, and the plain-text fast path is as cheap per byte at this size as at 64 KiB.
 */
const MAX_PIECE_BYTES = 16 * 1024;

/** A full event-loop turn: I/O of other fds is polled before it resolves (a microtask is not). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class PtyReader {
  // Bun reads a dup of the fd and closes that dup when the stream ends or is cancelled.
  private readonly reader;
  private cancelled = false;
  private readonly pacer = new FloodPacer();
  /** Resolves when reading ended: end of file, EIO (the slave side is gone everywhere), or cancel. */
  readonly ended: Promise<void>;
  private waiting = false;

  constructor(fd: number, onChunk: (data: Uint8Array) => void) {
    this.reader = Bun.file(fd).stream().getReader();
    this.ended = this.pump(onChunk);
  }

  private async pump(onChunk: (data: Uint8Array) => void): Promise<void> {
    try {
      for (;;) {
        // A rejected read is EIO: every slave descriptor is closed, which is the PTY's end of file.
        this.waiting = true;
        const result = await this.reader.read().catch(() => null);
        this.waiting = false;
        if (!result || result.done || this.cancelled) return;
        const chunk = result.value;
        this.pacer.arrived(performance.now());
        for (let at = 0; at < chunk.length; at += MAX_PIECE_BYTES) {
          const start = performance.now();
          onChunk(at === 0 && chunk.length <= MAX_PIECE_BYTES ? chunk : chunk.subarray(at, at + MAX_PIECE_BYTES));
          const end = performance.now();
          const pause = this.pacer.parsed(end - start, end);
          await (pause > 0 ? Bun.sleep(pause) : nextTurn());
          this.pacer.resumed(performance.now());
          if (this.cancelled) return;
        }
      }
    } finally {
      this.pacer.dispose();
    }
  }

  /**
   * Everything read so far has been handed to the consumer: the pump waits for the next read.
   * A read that resolved wakes the pump in the same microtask checkpoint, so in a later task
   * this is false whenever bytes taken from the fd are still on their way to the consumer.
   */
  get idle(): boolean {
    return this.waiting && !this.cancelled;
  }

  /** Stops reading and releases Bun's dup of the master (which lets the kernel hang up the tty). */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reader.cancel().catch(() => undefined);
  }
}
