/**
 * Docker's "stdcopy" framing: an exec without a TTY sends stdout and stderr over one stream, each
 * frame behind an 8-byte header (stream id, three zero bytes, the payload's length big-endian).
 * The demuxer takes chunks as they arrive, frames split anywhere, and hands out whole payloads.
 */

/** Bytes of a frame header. */
const HEADER_BYTES = 8;

export type StdStream = "stdout" | "stderr";

export class StdcopyDemuxer {
  private buffered = new Uint8Array(0);

  constructor(private readonly emit: (stream: StdStream, payload: Uint8Array) => void) {}

  push(chunk: Uint8Array): void {
    let buf = this.buffered.length > 0 ? concat(this.buffered, chunk) : chunk;
    while (buf.length >= HEADER_BYTES) {
      const length = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(4);
      if (buf.length < HEADER_BYTES + length) break;
      const payload = buf.subarray(HEADER_BYTES, HEADER_BYTES + length);
      // Stream 2 is stderr; 0 (stdin) and 1 are output the caller reads as stdout.
      if (length > 0) this.emit(buf[0] === 2 ? "stderr" : "stdout", payload.slice());
      buf = buf.subarray(HEADER_BYTES + length);
    }
    this.buffered = buf.slice();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
