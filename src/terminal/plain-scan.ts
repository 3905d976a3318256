/**
 * Scans over raw terminal output that let the emulator (emulator.ts) skip work: where a run of
 * plain text stops (the fast path that bypasses the parser) and where a parse piece must end.
 */

/**
 * Input is parsed in pieces small enough that no piece can push more rows into xterm's
 * scrollback than it holds before we copy them out: ≤ 8 KiB makes ≤ 410 rows at the minimum
 * width of 20 columns, plus at most 400 line feeds.
 */
const PIECE_MAX_BYTES = 8192;
const PIECE_MAX_LINE_FEEDS = 400;

/**
 * Plain text (printable ASCII in whole CR LF lines) bypasses the parser when there is a lot of
 * it: the rows that would scroll off go straight into history, and only the rows that stay on
 * screen are parsed. Worth it from this many lines; below, the parser is cheap enough. Measured
 * on `yes` lines in 4 KiB reads (what a PTY hands over while the reader keeps up): 18 ms of CPU
 * per 256 KiB at 64, 27 ms at 256 (where 83-line reads all went through the parser).
 */
export const FAST_PATH_MIN_LINES = 64;
/** Each of those lines ends in CR LF: less input than this cannot hold them. */
export const FAST_PATH_MIN_BYTES = 2 * FAST_PATH_MIN_LINES;
/** How far ahead one fast-path step looks (Bun delivers PTY output in chunks of up to ~64 KiB). */
export const FAST_PATH_SCAN_BYTES = 1 << 17;
/**
 * What is converted first to decide: styled output (most pieces that are not plain) shows a
 * non-plain byte within a few lines, so it costs a probe of this size instead of a full scan.
 */
const FAST_PATH_PROBE_BYTES = 4096;

export const CR = 0x0d;
export const LF = 0x0a;

/**
 * The plain text from `start` (printable ASCII, CR only in CR LF) as a latin1 string, and how many
 * CR LF it holds; null when something else comes within the first few lines (most pieces of
 * styled output end here, after scanning a small probe instead of FAST_PATH_SCAN_BYTES).
 */
export function plainRun(data: Uint8Array, start: number): { text: string; lines: number } | null {
  const probeEnd = Math.min(data.length, start + FAST_PATH_PROBE_BYTES);
  const probe = scanPlain(data, start, probeEnd);
  if (probe.stop < probeEnd && probe.lines < FAST_PATH_MIN_LINES) return null;
  let { stop, lines } = probe;
  if (stop >= probeEnd && stop < data.length) {
    const rest = scanPlain(data, stop, Math.min(data.length, start + FAST_PATH_SCAN_BYTES));
    stop = rest.stop;
    lines += rest.lines;
  }
  return { text: Buffer.from(data.buffer, data.byteOffset + start, stop - start).toString("latin1"), lines };
}

/**
 * Where plain text from `from` stops (its first byte outside printable ASCII, or a CR or LF that
 * is not part of a CR LF pair), looking no further than `to` (a pair starting at `to` - 1 is
 * taken whole), and the CR LF pairs before that. A byte loop: the JIT makes it cheaper than a
 * regex over a converted string.
 */
function scanPlain(data: Uint8Array, from: number, to: number): { stop: number; lines: number } {
  let lines = 0;
  let i = from;
  for (; i < to; i++) {
    const b = data[i]!;
    if (b >= 0x20 && b <= 0x7e) continue;
    if (b === CR && data[i + 1] === LF) {
      i++;
      lines++;
      continue;
    }
    return { stop: i, lines };
  }
  return { stop: i, lines };
}

/**
 * End index of the parse piece starting at `start` (see PIECE_MAX_*). A piece also ends right
 * after an OSC that starts with `mark` (terminated by BEL or ST) when a bare CR follows in the
 * chunk: the mark may change how the CR filter treats it. Otherwise the mark's state changes
 * nothing in the rest of the chunk, and one parse call is cheaper than several.
 */
export function pieceEnd(data: Uint8Array, start: number, mark: Uint8Array | null): number {
  const limit = Math.min(data.length, start + PIECE_MAX_BYTES);
  let feeds = 0;
  for (let i = start; i < limit; i++) {
    const b = data[i]!;
    if (b === 0x0a || b === 0x0b || b === 0x0c) {
      if (++feeds >= PIECE_MAX_LINE_FEEDS) return i + 1;
    } else if (b === 0x1b && mark && startsWithAt(data, i, mark)) {
      // The state a mark sets (the bare-CR filter, a fresh row) applies from right after it.
      return oscEnd(data, i + mark.length);
    }
  }
  return limit;
}

/** Index after the BEL or ST that ends the OSC whose body starts at `from` (the chunk's end if none). */
function oscEnd(data: Uint8Array, from: number): number {
  for (let j = from; j < data.length; j++) {
    if (data[j] === 0x07) return j + 1;
    if (data[j] === 0x1b && data[j + 1] === 0x5c) return j + 2;
  }
  return data.length;
}

function startsWithAt(data: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > data.length) return false;
  for (let k = 1; k < prefix.length; k++) if (data[at + k] !== prefix[k]) return false;
  return true;
}
