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
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { RowHistory, type HeadCapture, type Row } from "./history.ts";
import { BareCrFilter } from "./cr-filter.ts";
import { StringBound } from "./string-bound.ts";
import { markedRows } from "./highlight.ts";
import { lineText, xtermCore, type XtermCore } from "./xterm-internals.ts";
import { CR, FAST_PATH_MIN_BYTES, FAST_PATH_MIN_LINES, LF, pieceEnd, plainRun } from "./plain-scan.ts";

/** The Unicode version whose character widths the emulator uses (see the constructor). */
const UNICODE_VERSION = "11";
/** xterm's own scrollback: only a staging area between parse pieces, so small. */
const EMULATOR_SCROLLBACK = 1000;
/**
 * Rows of xterm's scrollback that trimScrollback keeps: what an attaching human is replayed above
 * the screen (the daemon's attach serializes them from xterm, not from history).
 */
export const SCROLLBACK_KEPT_ROWS = 200;
/**
 * A position in the output: absolute row, cell column, the row's text before that column, and the
 * row's line number.
 */
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
  /** The plain-text fast path (default on); tests turn it off to compare against the parser. */
  fastPath?: boolean;
  /**
   * Where the terminal's answer to a cursor position query (DSR 6, `ESC [ 6 n`) goes: to the
   * program, as a terminal would send it. Without one, irb (reline) waits for it forever at start.
   */
  onCursorReport?: (report: string) => void;
}

/** The Device Status Report that asks for the cursor's position (CSI 6 n; CSI ? 6 n is another handler's). */
const DSR_CURSOR_POSITION = 6;

/** A lone CR, as a held one (see pendingScreen) goes to the bare-CR filter. */
const CR_ONLY = new Uint8Array([CR]);
const CR_LF = new Uint8Array([CR, LF]);

export class Emulator {
  private readonly xterm: Terminal;
  readonly history: RowHistory;
  private readonly core: XtermCore;
  /** Marker on the normal buffer's first row not yet copied into history. */
  private anchor: IMarker | undefined;
  private readonly crFilter: BareCrFilter;
  private resetSeen = false;
  /** Set while the fast path redraws the screen itself: its own clear is not the program's. */
  private redrawing = false;
  /**
   * The lines the fast path left on screen (each ending in CR LF, but for an unfinished last one
   * shorter than a row, where the cursor is), not yet drawn into xterm: the next fast-path step
   * moves them to history as text, so a flood of plain text is drawn once when something looks at
   * the screen (or other output comes), not once per read. A read that ended inside a CR LF leaves
   * the CR here too, last: held, it lets the next read's LF go on in the fast path.
   */
  private pendingScreen: string | null = null;
  /** Bytes parsed over the session's life. */
  bytesIn = 0;
  /** Lines that took the plain-text fast path (observability and tests). */
  fastPathLines = 0;
  /** "ESC ] <oscId> ;": a piece ends after each such mark, so the state it sets applies to the rest. */
  private readonly markPrefix: Uint8Array | null;
  /** Keeps an endless OSC or DCS string from filling memory in xterm (string-bound.ts). */
  private readonly stringBound = new StringBound();
  /** A mark handler asked for a fresh row (startFreshRow): drawn right after the mark's piece. */
  private freshRowDue = false;

  constructor(private readonly opts: EmulatorOptions) {
    this.xterm = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: EMULATOR_SCROLLBACK,
      allowProposedApi: true,
      logLevel: "off",
    });
    // Cell widths as the shells' line editors count them (glibc's and fish's wcwidth: emoji take two
    // cells), not xterm's default Unicode 6 (one): where they disagree, a line editor's cursor
    // moves over a wrapped command line land elsewhere than it thinks, and the command's output
    // is then written over the last row of its echo, which stays in the output.
    this.xterm.loadAddon(new Unicode11Addon());
    this.xterm.unicode.activeVersion = UNICODE_VERSION;
    this.core = xtermCore(this.xterm);
    this.history = opts.history ?? new RowHistory();
    this.crFilter = new BareCrFilter(opts.resetLineOnBareCr ?? (() => false));
    this.markPrefix = opts.oscId !== undefined ? new TextEncoder().encode(`\x1b]${opts.oscId};`) : null;
    if (opts.oscId !== undefined && opts.onOsc) {
      const onOsc = opts.onOsc;
      this.xterm.parser.registerOscHandler(opts.oscId, (data) => {
        onOsc({ data, pos: this.cursorPos() });
        return true;
      });
    }
    if (opts.onCursorReport) {
      const report = opts.onCursorReport;
      // Answered mid-parse, where the query stands: the cursor is where the program left it then.
      this.xterm.parser.registerCsiHandler({ final: "n" }, (params) => {
        if (params.length !== 1 || params[0] !== DSR_CURSOR_POSITION) return false;
        const buf = this.xterm.buffer.active;
        report(`\x1b[${buf.cursorY + 1};${buf.cursorX + 1}R`);
        return true;
      });
    }
    // RIS (ESC c) replaces xterm's buffers, which invalidates our anchor: copy the screen out first.
    this.xterm.parser.registerEscHandler({ final: "c" }, () => {
      this.finalizeScreenBeforeReset();
      return false;
    });
    // A screen clear (`clear`, `tput clear`, ED 2) erases the screen in place in xterm, so output
    // printed after it would land on rows that already have absolute numbers before the command's
    // start mark. Terminals like VTE scroll the cleared screen into scrollback instead; do the same
    // (history keeps the old rows, the cleared screen starts at fresh rows after them).
    this.xterm.parser.registerCsiHandler({ final: "J" }, (params) => {
      if (isWholeScreenErase(params, this.xterm.buffer.active.cursorX, this.xterm.buffer.active.cursorY)) {
        this.scrollScreenIntoHistory();
      } else if (params[0] === 3) {
        this.syncHistory(); // ED 3 drops xterm's scrollback: copy out what is not in history yet
      }
      return false;
    });
    this.reanchor();
  }

  /** The xterm instance, its screen brought up to date first (for addons: the attach serializer). */
  get term(): Terminal {
    this.materialize();
    return this.xterm;
  }

  get cols(): number {
    return this.xterm.cols;
  }
  get rows(): number {
    return this.xterm.rows;
  }
  get altScreen(): boolean {
    return this.xterm.buffer.active.type === "alternate";
  }
  get applicationCursorKeys(): boolean {
    return this.xterm.modes.applicationCursorKeysMode;
  }
  get bracketedPaste(): boolean {
    return this.xterm.modes.bracketedPasteMode;
  }

  /** Parses bytes from the program. Synchronous: marks and state are current when it returns. */
  ingest(input: Uint8Array): void {
    this.bytesIn += input.length;
    const data = this.stringBound.apply(input);
    let start = 0;
    while (start < data.length) {
      const fast = this.fastPath(data, start);
      if (fast.consumed > start) {
        start = fast.consumed;
        continue;
      }
      // A read rarely ends at a line end: the parser finishes the cursor's line, the fast path takes the rest.
      const end = Math.min(pieceEnd(data, start, this.markPrefix), fast.finishLineAt ?? Infinity);
      const piece = start === 0 && end === data.length ? data : data.subarray(start, end);
      this.materialize();
      // Filtered per piece: a mark inside the chunk may change whether the filter applies.
      this.core.writeSync(this.crFilter.apply(piece, this.altScreen));
      if (this.freshRowDue) {
        this.freshRowDue = false;
        this.core.writeSync(CR_LF);
      }
      this.syncHistory();
      start = end;
    }
  }

  /**
   * Called from a mark handler: what follows the mark starts on a row of its own in this screen,
   * and only here (the bytes the program sent are not changed, so an attached terminal draws them
   * as they came). A piece ends after each mark, so the row starts exactly at the mark.
   */
  startFreshRow(): void {
    this.freshRowDue = true;
  }

  resize(cols: number, rows: number): void {
    this.materialize();
    this.syncHistory();
    this.xterm.resize(cols, rows);
    // Reflow may have moved rows of the old screen into scrollback: they are final now.
    this.syncHistory();
  }

  /**
   * Frees the rows of xterm's scrollback that history already holds, but the last
   * SCROLLBACK_KEPT_ROWS. After a flood the staging area is full: EMULATOR_SCROLLBACK rows of
   * cells (~1.6 KB each at 120 columns, 3.3 MB for two sessions measured in a heap snapshot), all
   * copies of history rows, kept for the session's life unless trimmed. Nothing is lost: only rows
   * above the anchor go, and they are in history. Under the alternate screen the normal buffer is
   * frozen with rows not yet copied, so it is left alone.
   */
  trimScrollback(): void {
    if (this.altScreen) return;
    this.syncHistory();
    const buf = this.xterm.buffer.normal;
    if (buf.baseY <= SCROLLBACK_KEPT_ROWS || this.anchorIndex() < buf.baseY) return;
    // xterm trims a buffer from the top when its scrollback option shrinks (markers move with it).
    this.xterm.options.scrollback = SCROLLBACK_KEPT_ROWS;
    this.xterm.options.scrollback = EMULATOR_SCROLLBACK;
  }

  dispose(): void {
    this.pendingScreen = null;
    this.anchor?.dispose();
    this.xterm.dispose();
  }

  /** The normal buffer's cursor as an absolute position. */
  cursorPos(): Pos {
    this.materialize();
    const buf = this.xterm.buffer.normal;
    const index = buf.baseY + buf.cursorY;
    const col = buf.cursorX;
    const line = buf.getLine(index);
    const row = this.absRow(index);
    return {
      row,
      col,
      prefix: col > 0 && line ? line.translateToString(false, 0, col) : "",
      lineNo: this.lineNoOfRow(row),
    };
  }

  /** Absolute row number after the last row with content (at least the cursor row). */
  contentEndRow(): number {
    this.materialize();
    const buf = this.xterm.buffer.normal;
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
    this.materialize();
    const out: Row[] = [];
    const h = this.history;
    const start = Math.max(from, h.firstRow);
    const histEnd = Math.min(to, h.endRow);
    for (let r = start; r < histEnd; r++) out.push({ text: h.text(r), lineNo: h.lineNo(r) });
    const liveStart = Math.max(start, h.endRow);
    if (liveStart >= to) return out;
    const buf = this.xterm.buffer.normal;
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
    this.materialize();
    const h = this.history;
    if (row < h.endRow) return h.has(row) ? h.lineNo(row) : h.firstLineNo;
    let lineNo = h.lastLineNo;
    const buf = this.xterm.buffer.normal;
    const base = this.anchorIndex();
    for (let r = h.endRow; r <= row; r++) {
      const line = buf.getLine(base + (r - h.endRow));
      if (!line?.isWrapped || lineNo === 0) lineNo++;
    }
    return lineNo;
  }

  /** Text of the active screen, one string per row, trailing blanks trimmed. */
  screenLines(): string[] {
    this.materialize();
    const buf = this.xterm.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.xterm.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? "");
    return lines;
  }

  /** The visible screen as the model reads it: screenLines with highlighted spans marked (highlight.ts). */
  markedScreenLines(): string[] {
    this.materialize();
    return markedRows(this.xterm.buffer.active, this.xterm.rows, this.xterm.cols);
  }

  /** The active screen's cursor, 1-based. */
  screenCursor(): { row: number; col: number } {
    this.materialize();
    const buf = this.xterm.buffer.active;
    return { row: buf.cursorY + 1, col: buf.cursorX + 1 };
  }

  /** Text of the cursor's row before the cursor (on the active screen). */
  textBeforeCursor(): string {
    this.materialize();
    const buf = this.xterm.buffer.active;
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
    return a && !a.isDisposed ? a.line : this.xterm.buffer.normal.baseY;
  }

  /**
   * The plain-text fast path (see FAST_PATH_MIN_LINES). Applies only where the result is the
   * same as parsing: normal screen, cursor at column 0 of a blank area, no scroll region, ASCII
   * charset, auto-wrap on, no pending CR. Consumes up to `consumed` (`start`: nothing). When only
   * the cursor's unfinished line stands in the way of a plain run, `finishLineAt` is where that
   * line ends, for the parser to take first.
   */
  private fastPath(data: Uint8Array, start: number): FastPathResult {
    const declined: FastPathResult = { consumed: start, finishLineAt: null };
    const buf = this.xterm.buffer.normal;
    if (this.opts.fastPath === false || data.length - start < FAST_PATH_MIN_BYTES) return declined;
    if (this.altScreen || this.crFilter.pending || !this.xterm.modes.wraparoundMode) return declined;
    const rows = this.xterm.rows;
    if (
      this.core.buffer.scrollTop !== 0 ||
      this.core.buffer.scrollBottom !== rows - 1 ||
      this.core._charsetService.charset !== undefined
    )
      return declined;
    const pending = this.pendingScreen;
    // The last step ended on a CR (a read split a CR LF): held, as its meaning is the next byte's.
    const heldCr = pending?.endsWith("\r") === true;
    const crLf = heldCr && data[start] === LF;
    if (heldCr && !crLf) return declined;
    const run = plainRun(data, crLf ? start + 1 : start);
    if (run === null) return declined;
    if (pending === null && buf.cursorX !== 0) {
      // The first CR LF ends the cursor's line; the lines after it are the fast path's.
      if (run.lines - 1 < FAST_PATH_MIN_LINES) return declined;
      return { consumed: start, finishLineAt: start + run.text.indexOf("\r\n") + 2 };
    }
    // A line the last step left unfinished (pending, after its last CR LF) goes on in this run.
    const pendingCrLf = pending === null ? -1 : pending.lastIndexOf("\r\n");
    const carryFrom = pendingCrLf < 0 ? 0 : pendingCrLf + 2;
    const carry = pending === null ? "" : pending.slice(carryFrom);
    const text = crLf ? `${carry}\n${run.text}` : carry + run.text;
    const runStart = crLf ? start + 1 : start;
    const runOffset = text.length - run.text.length;
    const lastCrLf = text.lastIndexOf("\r\n");
    if (lastCrLf < 0) return declined;
    // Where each line starts, and the end after the last one; strings are made only for history.
    let n = 0;
    for (let at = 0; at <= lastCrLf; ) {
      if (n + 1 >= lineStarts.length) lineStarts = growInt32(lineStarts);
      lineStarts[n++] = at;
      at = text.indexOf("\r\n", at) + 2;
    }
    lineStarts[n] = lastCrLf + 2;
    const lineLen = (k: number) => lineStarts[k + 1]! - 2 - lineStarts[k]!;
    if (n < FAST_PATH_MIN_LINES) return declined;
    if (pending === null)
      for (let y = buf.cursorY; y < rows; y++)
        if (buf.getLine(buf.baseY + y)!.translateToString(true).length > 0) return declined;

    const cols = this.xterm.cols;
    const rowsOf = (k: number) => Math.max(1, Math.ceil(lineLen(k) / cols));
    // The lines that stay on screen: as many whole lines as fit above the cursor's final row.
    let tailStart = n;
    let tailRows = 0;
    while (tailStart > 0 && tailRows + rowsOf(tailStart - 1) <= rows - 1) tailRows += rowsOf(--tailStart);
    if (tailStart === n) return declined;

    this.fastPathLines += tailStart;
    if (pending !== null) {
      // The screen is the pending lines: they scroll off as text, as they were printed.
      for (let at = 0; at < carryFrom; ) {
        const end = pending.indexOf("\r\n", at);
        this.pushText(pending, at, end, cols);
        at = end + 2;
      }
    } else {
      this.syncHistory();
      for (let y = 0; y < buf.cursorY; y++) this.pushLine(buf.getLine(buf.baseY + y));
    }
    for (let k = 0; k < tailStart; k++) this.pushText(text, lineStarts[k]!, lineStarts[k]! + lineLen(k), cols);
    // An unfinished last line stays pending too (the cursor after it), unless it would wrap: the
    // next read would otherwise go through the parser only to finish it, drawing the whole screen
    // first (a PTY read rarely ends at a line end).
    const keepsTail = text.length - (lastCrLf + 2) < cols;
    const runEnd = runStart + run.text.length;
    const holdsCr = keepsTail && runEnd === data.length - 1 && data[runEnd] === CR;
    const screen = text.slice(lineStarts[tailStart]!, keepsTail ? text.length : lastCrLf + 2);
    this.pendingScreen = holdsCr ? `${screen}\r` : screen;
    if (!keepsTail) return { consumed: runStart + lastCrLf + 2 - runOffset, finishLineAt: null };
    return { consumed: holdsCr ? data.length : runEnd, finishLineAt: null };
  }

  /** One line of plain text into history, as the rows it takes at `cols` columns. */
  private pushText(text: string, from: number, to: number, cols: number): void {
    const len = to - from;
    if (len <= cols) this.history.pushSlice(text, from, to, false);
    else
      for (let at = 0; at < len; at += cols)
        this.history.pushSlice(text, from + at, from + Math.min(len, at + cols), at > 0);
  }

  /** Draws the lines the fast path left pending (see pendingScreen) into xterm. */
  private materialize(): void {
    const screen = this.pendingScreen;
    if (screen === null) return;
    this.pendingScreen = null;
    // ED 2 clears the screen without touching scrollback (its rows are in history already).
    const heldCr = screen.endsWith("\r");
    this.redrawing = true;
    try {
      this.core.writeSync(`\x1b[H\x1b[2J${heldCr ? screen.slice(0, -1) : screen}`);
      // A held CR goes through the filter, as it would have come: its meaning is the next byte's.
      if (heldCr) this.core.writeSync(this.crFilter.apply(CR_ONLY, this.altScreen));
    } finally {
      this.redrawing = false;
    }
    this.syncHistory();
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
    const buf = this.xterm.buffer.normal;
    const from = this.anchorIndex();
    const to = buf.baseY;
    if (to <= from && this.anchor && !this.anchor.isDisposed) return;
    for (let i = from; i < to; i++) this.pushLine(buf.getLine(i));
    this.reanchor();
  }

  private pushLine(line: IBufferLine | undefined): void {
    if (line) this.history.push(lineText(line), line.isWrapped);
  }

  private reanchor(): void {
    if (this.altScreen) return;
    this.anchor?.dispose();
    const buf = this.xterm.buffer.normal;
    this.anchor = this.xterm.registerMarker(-buf.cursorY);
  }

  /**
   * Before xterm erases the normal screen: its rows up to the last one with content become
   * history, and since the anchor stays at the top of the screen, the erased screen's rows get
   * the absolute numbers after them. Positions taken before the clear keep pointing at the text.
   */
  private scrollScreenIntoHistory(): void {
    if (this.redrawing || this.altScreen) return;
    this.syncHistory();
    const buf = this.xterm.buffer.normal;
    let last = -1;
    for (let y = this.xterm.rows - 1; y >= 0 && last < 0; y--) {
      if (buf.getLine(buf.baseY + y)!.translateToString(true).length > 0) last = y;
    }
    if (last < 0) return; // a blank screen: nothing to keep
    // Blank rows below stay: a mark at the start of one (a command's start) maps onto the new
    // screen's top row, where the command's output after the clear begins.
    for (let y = 0; y <= last; y++) this.pushLine(buf.getLine(buf.baseY + y));
  }

  private finalizeScreenBeforeReset(): void {
    this.syncHistory();
    const buf = this.xterm.buffer.normal;
    let last = -1;
    for (let y = 0; y < this.xterm.rows; y++)
      if (buf.getLine(buf.baseY + y)!.translateToString(true).length > 0) last = y;
    for (let y = 0; y <= last; y++) this.pushLine(buf.getLine(buf.baseY + y));
    this.resetSeen = true;
  }
}

/**
 * Line starts of the fast path's current run, reused from run to run: splitting a run into an
 * array of strings allocated ~7 bytes per byte of `yes` (an array slot per 3-byte line), measured
 * 290 MB of garbage per 40 MB parsed, against 21 MB with this buffer.
 */
let lineStarts: Int32Array = new Int32Array(1024);

function growInt32(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

interface FastPathResult {
  consumed: number;
  finishLineAt: number | null;
}

/** ED 2, or ED 0 from the screen's home position: the whole screen is about to be erased. */
function isWholeScreenErase(params: (number | number[])[], cursorX: number, cursorY: number): boolean {
  const mode = params[0] ?? 0;
  return mode === 2 || (mode === 0 && cursorX === 0 && cursorY === 0);
}
