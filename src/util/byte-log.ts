/**
 * The last bytes of a stream, bounded: what a session printed, kept for a raw read
 * (src/session/raw-output.ts) or for a remote ptyhub reattaching at a byte offset
 * (src/daemon/replay-log.ts). Offsets count every byte appended since the stream's start, so a
 * reader holds a plain number and learns what fell out of the bound.
 */
export class ByteLog {
  private chunks: Uint8Array[] = [];
  private kept = 0;
  /** Offset of the first byte still kept. */
  start: number;
  /** Offset after the last byte appended. */
  end: number;

  constructor(
    startOffset: number,
    /** The bound in bytes; the newest chunk is always kept whole, even past it. */
    public maxBytes: number,
    /** Told of each chunk dropped from the front (to count what it held). */
    private readonly onDrop: (chunk: Uint8Array) => void = () => {},
  ) {
    this.start = this.end = startOffset;
  }

  append(data: Uint8Array): void {
    // The writer may reuse its buffer: keep a copy.
    this.chunks.push(data.slice());
    this.kept += data.length;
    this.end += data.length;
    while (this.kept > this.maxBytes && this.chunks.length > 1) {
      const head = this.chunks.shift()!;
      this.kept -= head.length;
      this.start += head.length;
      this.onDrop(head);
    }
  }

  /** The bytes from `offset` on (from the oldest kept one if `offset` is older), and where they start. */
  since(offset: number): { offset: number; bytes: Uint8Array } {
    const from = Math.min(Math.max(offset, this.start), this.end);
    const out = new Uint8Array(this.end - from);
    let at = this.start;
    let written = 0;
    for (const c of this.chunks) {
      const cEnd = at + c.length;
      if (cEnd > from) {
        const piece = at >= from ? c : c.subarray(from - at);
        out.set(piece, written);
        written += piece.length;
      }
      at = cEnd;
    }
    return { offset: from, bytes: out };
  }
}
