/**
 * The finalized rows of a terminal: every row that scrolled off the top of the emulator's screen,
 * copied out as text, numbered absolutely from the session's start. Absolute numbers never shift,
 * so a reader's cursor, a command's start mark or a `truncated` range stays meaningful while old
 * rows are evicted. Rows belong to logical lines (a long line wraps over several rows); line
 * numbers are absolute too, and they are what `term_read mode: history` speaks in.
 *
 * Memory is bounded: at most MAX_ROWS rows, and past MIN_ROWS rows at most MAX_CHARS characters.
 * Eviction first offers each row to the registered head captures, so a command whose output is far
 * larger than the history still reports its first lines.
 */

/** Rows kept however long they are: the floor of 10,000 lines of history. */
export const HISTORY_MIN_ROWS = 10_000;
/**
 * Upper bound on rows: a `seq 1 100000`-sized run stays fetchable by line number. Short rows
 * cost ~50 bytes each, so this bounds a session's history near 6 MB plus MAX_CHARS.
 */
export const HISTORY_MAX_ROWS = 120_000;
/** Character budget once MIN_ROWS are kept (~2 bytes each in memory). */
export const HISTORY_MAX_CHARS = 2_000_000;
/** Compact the backing arrays once this many evicted slots have piled up at their front. */
const COMPACT_THRESHOLD = 4096;

/** One screen row's text and the absolute logical line it belongs to (wrapped rows share one). */
export interface Row {
  text: string;
  lineNo: number;
}

/** Keeps the first rows of a range that may be evicted before its reader renders it. */
export class HeadCapture {
  readonly rows: Row[] = [];
  /** Characters of rows in range that were evicted and not kept. */
  droppedChars = 0;
  constructor(
    readonly startRow: number,
    readonly maxRows: number,
  ) {}
  /** Absolute row number after the last captured row. */
  get endRow(): number {
    return this.startRow + this.rows.length;
  }
}

export class RowHistory {
  private texts: string[] = [];
  private lineNos: number[] = [];
  private head = 0;
  private chars = 0;
  /** Absolute number of the oldest row still kept. */
  private first = 0;
  private captures = new Set<HeadCapture>();
  /** Characters evicted over the session's life. */
  evictedChars = 0;

  constructor(
    private readonly maxRows = HISTORY_MAX_ROWS,
    private readonly minRows = HISTORY_MIN_ROWS,
    private readonly maxChars = HISTORY_MAX_CHARS,
  ) {}

  /** Absolute row number of the oldest kept row. */
  get firstRow(): number {
    return this.first;
  }
  /** Absolute row number the next pushed row will get (= rows ever finalized). */
  get endRow(): number {
    return this.first + this.texts.length - this.head;
  }
  get size(): number {
    return this.texts.length - this.head;
  }
  /** Logical line number of the last finalized row (0 before any row). */
  get lastLineNo(): number {
    return this.size > 0 ? this.lineNos[this.texts.length - 1]! : this.evictedLastLineNo;
  }
  private evictedLastLineNo = 0;

  push(text: string, wrapped: boolean): void {
    const prev = this.lastLineNo;
    this.texts.push(text);
    this.lineNos.push(wrapped && prev > 0 ? prev : prev + 1);
    this.chars += text.length;
    this.evict();
  }

  has(row: number): boolean {
    return row >= this.first && row < this.endRow;
  }

  text(row: number): string {
    return this.texts[this.head + row - this.first]!;
  }

  lineNo(row: number): number {
    return this.lineNos[this.head + row - this.first]!;
  }

  /** True when `row` continues the previous row's logical line. */
  wrapped(row: number): boolean {
    const prev = row === this.first ? this.evictedLastLineNo : this.lineNo(row - 1);
    return this.lineNo(row) === prev;
  }

  /** First absolute row whose logical line number is ≥ lineNo (binary search), or endRow. */
  rowOfLine(lineNo: number): number {
    let lo = this.first;
    let hi = this.endRow;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lineNo(mid) < lineNo) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Logical line number of the oldest kept row's line (0 when empty). */
  get firstLineNo(): number {
    return this.size > 0 ? this.lineNo(this.first) : this.evictedLastLineNo + 1;
  }

  /** Registers a capture of the first rows ≥ startRow that get evicted; release it when done. */
  capture(startRow: number, maxRows: number): HeadCapture {
    const cap = new HeadCapture(startRow, maxRows);
    this.captures.add(cap);
    return cap;
  }

  release(cap: HeadCapture): void {
    this.captures.delete(cap);
  }

  private evict(): void {
    while (this.size > this.maxRows || (this.chars > this.maxChars && this.size > this.minRows)) {
      const text = this.texts[this.head]!;
      const row = this.first;
      if (this.captures.size > 0) this.offerToCaptures(row, text);
      this.evictedLastLineNo = this.lineNos[this.head]!;
      this.texts[this.head] = "";
      this.head++;
      this.first++;
      this.chars -= text.length;
      this.evictedChars += text.length;
    }
    if (this.head >= COMPACT_THRESHOLD && this.head * 2 >= this.texts.length) {
      this.texts = this.texts.slice(this.head);
      this.lineNos = this.lineNos.slice(this.head);
      this.head = 0;
    }
  }

  private offerToCaptures(row: number, text: string): void {
    for (const cap of this.captures) {
      if (row < cap.startRow) continue;
      if (row === cap.endRow && cap.rows.length < cap.maxRows) {
        cap.rows.push({ text, lineNo: this.lineNos[this.head]! });
      } else {
        cap.droppedChars += text.length;
      }
    }
  }
}
