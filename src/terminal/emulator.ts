/**
 * The terminal model of one session: bytes in, rendered rows out. A headless xterm parses the
 * byte stream (screen, cursor, alt screen, modes); rows that scroll off its screen are copied into
 * a RowHistory with absolute row numbers, which is what readers' cursors and command marks point
 * into. xterm keeps only a small scrollback of its own (memory: xterm cells cost ~12 bytes each).
 *
 * Parsing is synchronous (`writeSync`), so OSC marks fire at their exact position in the stream
 * and every reader sees a state that is consistent with the bytes received so far.
 */
import { Terminal, type IBufferLine, type IMarker } from "@xterm/headless";
import { RowHistory, type HeadCapture, type Row } from "./history.ts";
import { BareCrFilter } from "./cr-filter.ts";

/** xterm's own scrollback: only a staging area between parse pieces, so small. */
const EMULATOR_SCROLLBACK = 1000;
/**
 * Input is parsed in pieces small enough that no piece can push more rows into xterm's
 * scrollback than it holds before we copy them out: ≤ 8 KiB makes ≤ 410 rows at the minimum
 * width of 20 columns, plus at most 400 line feeds.
 */
const PIECE_MAX_BYTES = 8192;
const PIECE_MAX_LINE_FEEDS = 400;

/** A position in the output: absolute row, cell column, the row's text before that column, and the row's line number. */
export interface Pos {
  row: number;
  col: number;
  prefix: string;
  lineNo: number;
}

export interface OscEvent {
  data: string;
  pos: Pos;
}

export interface EmulatorOptions {
  cols: number;
  rows: number;
  history?: RowHistory;
  /** Called synchronously, mid-parse, for each OSC with this identifier. */
  oscId?: number;
  onOsc?: (event: OscEvent) => void;
  /** Whether a bare CR should also clear the line (progress-bar semantics); see cr-filter.ts. */
  resetLineOnBareCr?: () => boolean;
}

interface XtermCore {
  writeSync(data: string | Uint8Array): void;
}

export class Emulator {
  readonly term: Terminal;
  readonly history: RowHistory;
  private readonly core: XtermCore;
  /** Marker on the normal buffer's first row not yet copied into history. */
  private anchor: IMarker | undefined;
  private readonly crFilter: BareCrFilter;
  private resetSeen = false;
  /** Bytes parsed over the session's life. */
  bytesIn = 0;
  /** "ESC ] <oscId> ;": a piece ends after each such mark, so the state it sets applies to the rest. */
  private readonly markPrefix: Uint8Array | null;

  constructor(private readonly opts: EmulatorOptions) {
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: EMULATOR_SCROLLBACK,
      allowProposedApi: true,
      logLevel: "off",
    });
    this.core = (this.term as unknown as { _core: XtermCore })._core;
    this.history = opts.history ?? new RowHistory();
    this.crFilter = new BareCrFilter(opts.resetLineOnBareCr ?? (() => false));
    this.markPrefix = opts.oscId !== undefined ? new TextEncoder().encode(`\x1b]${opts.oscId};`) : null;
    if (opts.oscId !== undefined && opts.onOsc) {
      const onOsc = opts.onOsc;
      this.term.parser.registerOscHandler(opts.oscId, (data) => {
        onOsc({ data, pos: this.cursorPos() });
        return true;
      });
    }
    // RIS (ESC c) replaces xterm's buffers, which invalidates our anchor: copy the screen out first.
    this.term.parser.registerEscHandler({ final: "c" }, () => {
      this.finalizeScreenBeforeReset();
      return false;
    });
    this.reanchor();
  }

  get cols(): number {
    return this.term.cols;
  }
  get rows(): number {
    return this.term.rows;
  }
  get altScreen(): boolean {
    return this.term.buffer.active.type === "alternate";
  }
  get applicationCursorKeys(): boolean {
    return this.term.modes.applicationCursorKeysMode;
  }
  get bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode;
  }

  /** Parses bytes from the program. Synchronous: marks and state are current when it returns. */
  ingest(data: Uint8Array): void {
    this.bytesIn += data.length;
    let start = 0;
    while (start < data.length) {
      const end = pieceEnd(data, start, this.markPrefix);
      const piece = start === 0 && end === data.length ? data : data.subarray(start, end);
      // Filtered per piece: a mark inside the chunk may change whether the filter applies.
      this.core.writeSync(this.crFilter.apply(piece, this.altScreen));
      this.syncHistory();
      start = end;
    }
  }

  resize(cols: number, rows: number): void {
    this.syncHistory();
    this.term.resize(cols, rows);
    // Reflow may have moved rows of the old screen into scrollback: they are final now.
    this.syncHistory();
  }

  dispose(): void {
    this.anchor?.dispose();
    this.term.dispose();
  }

  /** The normal buffer's cursor as an absolute position. */
  cursorPos(): Pos {
    const buf = this.term.buffer.normal;
    const index = buf.baseY + buf.cursorY;
    const col = buf.cursorX;
    const line = buf.getLine(index);
    const row = this.absRow(index);
    return { row, col, prefix: col > 0 && line ? line.translateToString(false, 0, col) : "", lineNo: this.lineNoOfRow(row) };
  }

  /** Absolute row number after the last row with content (at least the cursor row). */
  contentEndRow(): number {
    const buf = this.term.buffer.normal;
    let last = buf.baseY + buf.cursorY;
    for (let i = buf.length - 1; i > last; i--) {
      if (buf.getLine(i)!.translateToString(true).length > 0) {
        last = i;
        break;
      }
    }
    return this.absRow(last) + 1;
  }

  /** Rows [from, to) of the normal buffer's output, from history or the live buffer. */
  rowsBetween(from: number, to: number): Row[] {
    const out: Row[] = [];
    const h = this.history;
    const start = Math.max(from, h.firstRow);
    for (let r = start; r < to && r < h.endRow; r++) out.push({ text: h.text(r), lineNo: h.lineNo(r) });
    const liveStart = Math.max(start, h.endRow);
    if (liveStart >= to) return out;
    const buf = this.term.buffer.normal;
    const base = this.anchorIndex();
    let lineNo = this.lineNoOfRow(liveStart);
    for (let r = liveStart; r < to; r++) {
      const line = buf.getLine(base + (r - h.endRow));
      if (!line) break;
      if (r > liveStart && !line.isWrapped) lineNo++;
      out.push({ text: line.translateToString(true), lineNo });
    }
    return out;
  }

  /** Logical line number (1-based, absolute) of an absolute row. */
  lineNoOfRow(row: number): number {
    const h = this.history;
    if (row < h.endRow) return h.has(row) ? h.lineNo(row) : h.firstLineNo;
    let lineNo = h.lastLineNo;
    const buf = this.term.buffer.normal;
    const base = this.anchorIndex();
    for (let r = h.endRow; r <= row; r++) {
      const line = buf.getLine(base + (r - h.endRow));
      if (!line || !line.isWrapped || lineNo === 0) lineNo++;
    }
    return lineNo;
  }

  /** Text of the active screen, one string per row, trailing blanks trimmed. */
  screenLines(): string[] {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? "");
    return lines;
  }

  /** The active screen's cursor, 1-based. */
  screenCursor(): { row: number; col: number } {
    const buf = this.term.buffer.active;
    return { row: buf.cursorY + 1, col: buf.cursorX + 1 };
  }

  /** Text of the cursor's row before the cursor (on the active screen). */
  textBeforeCursor(): string {
    const buf = this.term.buffer.active;
    return buf.getLine(buf.baseY + buf.cursorY)?.translateToString(true, 0, buf.cursorX) ?? "";
  }

  /** Registers a capture of the first rows ≥ startRow that history evicts. */
  capture(startRow: number, maxRows: number): HeadCapture {
    return this.history.capture(startRow, maxRows);
  }

  private absRow(bufferIndex: number): number {
    return this.history.endRow + (bufferIndex - this.anchorIndex());
  }

  private anchorIndex(): number {
    const a = this.anchor;
    return a && !a.isDisposed ? a.line : this.term.buffer.normal.baseY;
  }

  /** Copies rows that entered xterm's scrollback into history and re-anchors. */
  private syncHistory(): void {
    if (this.resetSeen) {
      this.resetSeen = false;
      this.reanchor();
      return;
    }
    // While the alternate screen is active the normal buffer is frozen: nothing to copy.
    if (this.altScreen && this.anchor && !this.anchor.isDisposed) return;
    const buf = this.term.buffer.normal;
    const from = this.anchorIndex();
    const to = buf.baseY;
    if (to <= from && this.anchor && !this.anchor.isDisposed) return;
    for (let i = from; i < to; i++) this.pushLine(buf.getLine(i));
    this.reanchor();
  }

  private pushLine(line: IBufferLine | undefined): void {
    if (line) this.history.push(line.translateToString(true), line.isWrapped);
  }

  private reanchor(): void {
    if (this.altScreen) return;
    this.anchor?.dispose();
    const buf = this.term.buffer.normal;
    this.anchor = this.term.registerMarker(-buf.cursorY);
  }

  private finalizeScreenBeforeReset(): void {
    this.syncHistory();
    const buf = this.term.buffer.normal;
    let last = -1;
    for (let y = 0; y < this.term.rows; y++) if (buf.getLine(buf.baseY + y)!.translateToString(true).length > 0) last = y;
    for (let y = 0; y <= last; y++) this.pushLine(buf.getLine(buf.baseY + y));
    this.resetSeen = true;
  }
}

/**
 * End index of the parse piece starting at `start` (see PIECE_MAX_*); a piece also ends right
 * after an OSC that starts with `mark` (terminated by BEL or ST).
 */
function pieceEnd(data: Uint8Array, start: number, mark: Uint8Array | null): number {
  const limit = Math.min(data.length, start + PIECE_MAX_BYTES);
  let feeds = 0;
  for (let i = start; i < limit; i++) {
    const b = data[i]!;
    if (b === 0x0a || b === 0x0b || b === 0x0c) {
      if (++feeds >= PIECE_MAX_LINE_FEEDS) return i + 1;
    } else if (b === 0x1b && mark && startsWithAt(data, i, mark)) {
      for (let j = i + mark.length; j < data.length; j++) {
        if (data[j] === 0x07) return j + 1;
        if (data[j] === 0x1b && data[j + 1] === 0x5c) return j + 2;
      }
      return data.length;
    }
  }
  return limit;
}

function startsWithAt(data: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > data.length) return false;
  for (let k = 1; k < prefix.length; k++) if (data[at + k] !== prefix[k]) return false;
  return true;
}
