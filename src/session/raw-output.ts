/**
 * A session's output as the program sent it, escape sequences and all, for `term_read {raw: true}`
 * (agents debugging terminal output itself). The emulator keeps the rendering; this keeps the last
 * RAW_OUTPUT_BYTES of the bytes. Lines are numbered from the session's start (a line per `\n`), so
 * what a budget cut out of a raw read can be fetched again with mode `history`, raw, from/to.
 */
import type { Line } from "../terminal/render.ts";
import { OSC_MARK_PATTERN } from "../terminal/shell-scripts.ts";
import { ByteLog } from "../util/byte-log.ts";

/**
 * Raw bytes kept per session: many screenfuls of escape-heavy TUI output, while a host full of
 * sessions (max_sessions 64) holds at most 16 MiB of them.
 */
export const RAW_OUTPUT_BYTES = 256 * 1024;

const NEWLINE = 0x0a;

function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === NEWLINE) n++;
  return n;
}

export interface RawLines {
  lines: Line[];
  /** Bytes asked for that are no longer kept. */
  lostBytes: number;
}

export class RawOutput {
  /** Newlines in the bytes no longer kept, so kept lines keep their numbers. */
  private droppedNewlines = 0;
  private readonly log: ByteLog;

  constructor(capacity = RAW_OUTPUT_BYTES) {
    this.log = new ByteLog(0, capacity, (dropped) => {
      this.droppedNewlines += countNewlines(dropped);
    });
  }

  /** Bytes received since the session started: a reader's position in the raw output. */
  get total(): number {
    return this.log.end;
  }

  push(data: Uint8Array): void {
    this.log.append(data);
  }

  /** The lines from byte position `from` (a reader's `total` at its last read) to the end. */
  since(from: number): RawLines {
    const kept = this.log.since(this.log.start).bytes;
    const skip = Math.min(kept.length, Math.max(0, from - this.log.start));
    const firstLine = this.droppedNewlines + countNewlines(kept.subarray(0, skip)) + 1;
    // Our shell-integration marks are not what the program sent, and they carry the session's nonce.
    const text = new TextDecoder().decode(kept.subarray(skip)).replace(OSC_MARK_PATTERN, "");
    const parts = text.split("\n");
    // Output ending with a newline has no line after it yet.
    if (parts.at(-1) === "") parts.pop();
    return {
      lines: parts.map((part, i) => ({ text: part, lineNo: firstLine + i })),
      lostBytes: Math.max(0, this.log.start - from),
    };
  }

  /** Kept lines [from, to], numbered from the session's start; negatives count from the last line. */
  range(from?: number, to?: number): RawLines {
    const all = this.since(0).lines;
    const last = all.at(-1)?.lineNo ?? this.droppedNewlines;
    const resolve = (n: number) => (n < 0 ? last + 1 + n : n);
    const first = resolve(from ?? 1);
    const end = resolve(to ?? last);
    const keptFrom = all[0]?.lineNo ?? last + 1;
    return {
      lines: all.filter((l) => l.lineNo >= first && l.lineNo <= end),
      lostBytes: first < keptFrom ? this.log.start : 0,
    };
  }
}
