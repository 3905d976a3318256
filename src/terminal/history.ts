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
/** Initial ring capacity; it doubles as rows arrive, up to HISTORY_MAX_ROWS. */
const INITIAL_CAPACITY = 256;
/**
 * Line numbers and character counts are kept per row as 32-bit offsets from a base (half the
 * memory of doubles: at HISTORY_MAX_ROWS that is 0.9 MB less per session, what a flood leaves
 * behind in every session it fills). Both grow without bound over a session's life, but the rows
 * kept span few of them: line numbers at most one per row, characters at most the rows' text
 * (≤ HISTORY_MAX_CHARS past MIN_ROWS, ≤ MIN_ROWS rows of a few screen widths below). When a value
 * would not fit, the base moves up to the oldest row's value (O(rows), once per ~4 billion).
 */
const OFFSET_LIMIT = 2 ** 32;

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
  // A ring that grows by doubling up to maxRows: O(1) push and evict, small for quiet sessions.
  /**
   * Per row: the string its text is in, from `starts` on (its length is the difference of
   * charsBefore): a row of its own, or a run of plain text that many rows share. No string is made
   * per row, so a flood's rows cost no allocation (measured: slicing each line of `seq 1 200000`
   * was a third of the fast path's time); a reader slices the few rows it shows.
   */
  private texts: string[] = new Array<string>(INITIAL_CAPACITY);
  private starts = new Uint32Array(INITIAL_CAPACITY);
  /** Per row: its line number, as an offset from lineBase. */
  private lineNos = new Uint32Array(INITIAL_CAPACITY);
  private lineBase = 0;
  /**
   * Per row: characters pushed before it over the session's life (sizes of ranges in O(1)), as an
   * offset from charBase.
   */
  private charsBefore = new Uint32Array(INITIAL_CAPACITY);
  private charBase = 0;
  private pushedChars = 0;
  private start = 0;
  private count = 0;
  private chars = 0;
  /** Absolute number of the oldest row still kept. */
  private first = 0;
  private evictedLastLineNo = 0;
  /** An array, not a Set: eviction walks it once per row, and there are usually 2–4. */
  private captures: HeadCapture[] = [];
  /** Characters evicted over the session's life. */
  evictedChars = 0;

  constructor(
    private readonly maxRows = HISTORY_MAX_ROWS,
    private readonly minRows = HISTORY_MIN_ROWS,
    private readonly maxChars = HISTORY_MAX_CHARS,
    /** OFFSET_LIMIT; tests pass a small one to move the bases often. */
    private readonly offsetLimit = OFFSET_LIMIT,
  ) {}

  /** Absolute row number of the oldest kept row. */
  get firstRow(): number {
    return this.first;
  }
  /** Absolute row number the next pushed row will get (= rows ever finalized). */
  get endRow(): number {
    return this.first + this.count;
  }
  get size(): number {
    return this.count;
  }
  /** Logical line number of the last finalized row (0 before any row). */
  get lastLineNo(): number {
    return this.count > 0 ? this.lineBase + this.lineNos[this.slot(this.count - 1)]! : this.evictedLastLineNo;
  }

  push(text: string, wrapped: boolean): void {
    this.pushSlice(text, 0, text.length, wrapped);
  }

  /** Pushes the row `base.slice(from, to)` without making that string. */
  pushSlice(base: string, from: number, to: number, wrapped: boolean): void {
    const prev = this.lastLineNo;
    if (this.count === this.texts.length) {
      if (this.count < this.maxRows) this.grow();
      else this.evictOne();
    }
    const lineNo = wrapped && prev > 0 ? prev : prev + 1;
    if (lineNo - this.lineBase >= this.offsetLimit || this.pushedChars - this.charBase >= this.offsetLimit)
      this.rebase(lineNo, this.pushedChars);
    const at = this.slot(this.count);
    this.texts[at] = base;
    this.starts[at] = from;
    this.lineNos[at] = lineNo - this.lineBase;
    this.charsBefore[at] = this.pushedChars - this.charBase;
    this.pushedChars += to - from;
    this.count++;
    this.chars += to - from;
    while (this.count > this.maxRows || (this.chars > this.maxChars && this.count > this.minRows)) this.evictOne();
  }

  has(row: number): boolean {
    return row >= this.first && row < this.endRow;
  }

  text(row: number): string {
    const k = row - this.first;
    const at = this.slot(k);
    const base = this.texts[at]!;
    const from = this.starts[at]!;
    const length = this.lengthAt(k);
    return from === 0 && length === base.length ? base : base.slice(from, from + length);
  }

  /** Characters of the kept row `k` rows after the oldest. */
  private lengthAt(k: number): number {
    const end = k + 1 < this.count ? this.charsBefore[this.slot(k + 1)]! : this.pushedChars - this.charBase;
    return end - this.charsBefore[this.slot(k)]!;
  }

  lineNo(row: number): number {
    return this.lineBase + this.lineNos[this.slot(row - this.first)]!;
  }

  /** Characters of the kept rows [from, to). */
  charsBetween(from: number, to: number): number {
    if (to <= from) return 0;
    const end = to >= this.endRow ? this.pushedChars : this.charBase + this.charsBefore[this.slot(to - this.first)]!;
    return end - (this.charBase + this.charsBefore[this.slot(from - this.first)]!);
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
    return this.count > 0 ? this.lineNo(this.first) : this.evictedLastLineNo + 1;
  }

  private slot(offset: number): number {
    const i = this.start + offset;
    return i >= this.texts.length ? i - this.texts.length : i;
  }

  private grow(): void {
    const capacity = Math.min(this.maxRows, this.texts.length * 2);
    const texts = new Array<string>(capacity);
    const starts = new Uint32Array(capacity);
    const lineNos = new Uint32Array(capacity);
    const charsBefore = new Uint32Array(capacity);
    for (let k = 0; k < this.count; k++) {
      const from = this.slot(k);
      texts[k] = this.texts[from]!;
      starts[k] = this.starts[from]!;
      lineNos[k] = this.lineNos[from]!;
      charsBefore[k] = this.charsBefore[from]!;
    }
    this.texts = texts;
    this.starts = starts;
    this.lineNos = lineNos;
    this.charsBefore = charsBefore;
    this.start = 0;
  }

  /**
   * Moves both bases up to the oldest kept row's values (with no row kept, to the values about to
   * be pushed), so that `lineNo` and `chars` fit as offsets. Rows too old to fit beside them are
   * evicted first (counted as any eviction); within the limits above this never happens.
   */
  private rebase(lineNo: number, chars: number): void {
    const oldestLineNo = () => this.lineBase + this.lineNos[this.start]!;
    const oldestChars = () => this.charBase + this.charsBefore[this.start]!;
    while (this.count > 0 && (lineNo - oldestLineNo() >= this.offsetLimit || chars - oldestChars() >= this.offsetLimit))
      this.evictOne();
    const lineBase = this.count > 0 ? oldestLineNo() : lineNo;
    const charBase = this.count > 0 ? oldestChars() : chars;
    const lineShift = lineBase - this.lineBase;
    const charShift = charBase - this.charBase;
    for (let k = 0; k < this.count; k++) {
      const i = this.slot(k);
      this.lineNos[i] = this.lineNos[i]! - lineShift;
      this.charsBefore[i] = this.charsBefore[i]! - charShift;
    }
    this.lineBase = lineBase;
    this.charBase = charBase;
  }

  private evictOne(): void {
    const at = this.start;
    const length = this.lengthAt(0);
    const lineNo = this.lineBase + this.lineNos[at]!;
    if (this.captures.length > 0) this.offerToCaptures(this.first, length, lineNo);
    this.evictedLastLineNo = lineNo;
    this.texts[at] = "";
    this.start = at + 1 === this.texts.length ? 0 : at + 1;
    this.count--;
    this.first++;
    this.chars -= length;
    this.evictedChars += length;
  }

  /** Registers a capture of the first rows ≥ startRow that get evicted; release it when done. */
  capture(startRow: number, maxRows: number): HeadCapture {
    const cap = new HeadCapture(startRow, maxRows);
    this.captures.push(cap);
    return cap;
  }

  release(cap: HeadCapture): void {
    this.captures = this.captures.filter((c) => c !== cap);
  }

  /** The oldest row (`row`, of `length` characters), about to be evicted, to each capture. */
  private offerToCaptures(row: number, length: number, lineNo: number): void {
    for (const cap of this.captures) {
      if (row < cap.startRow) continue;
      if (row === cap.endRow && cap.rows.length < cap.maxRows) {
        cap.rows.push({ text: this.text(row), lineNo });
      } else {
        cap.droppedChars += length;
      }
    }
  }
}
