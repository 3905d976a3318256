/**
 * Output between two positions, as renderable items: the head a capture kept of rows already
 * evicted, a gap for rows nobody kept, then history and live rows.
 */
import type { Emulator, Pos } from "./emulator.ts";
import type { HeadCapture, Row, RowHistory } from "./history.ts";
import { MIN_TOKEN_BUDGET, rowsToLines, type Gap, type Item } from "./render.ts";
import { stripEcho } from "./echo.ts";

export interface Region {
  items: Item[];
  /** Characters evicted from the range before anyone could read them. */
  droppedChars: number;
}

/**
 * Items for [from, to); `to` null means up to now (through the last row with content). The first
 * row starts after `from.prefix` when that row still begins with it; if it was rewritten since
 * (a progress bar, a redraw), it is shown whole. A `to` inside a row takes that row's text before
 * it (output without a final newline, followed by the next prompt).
 */
export function region(
  em: Emulator,
  from: Pos,
  to: Pos | null,
  capture?: HeadCapture | null,
  maxRows = Infinity,
  /** A token budget: long, varied output then comes as its two ends and a kept gap (see elide). */
  budget?: number,
): Region {
  const h = em.history;
  const endRow = Math.min(to ? to.row : em.contentEndRow(), from.row + maxRows);
  // Up to now: the cursor row keeps blanks before the cursor (">>> "), which rows otherwise trim.
  const cursor = to ? null : em.cursorPos();
  const parts: Array<Row[] | Gap> = [];
  let row = from.row;
  let droppedChars = 0;

  if (row < h.firstRow) {
    const cap = capture && capture.startRow === from.row ? capture : null;
    if (cap) {
      parts.push(cap.rows);
      row = cap.endRow;
      droppedChars = cap.droppedChars;
    }
    const lostTo = Math.min(h.firstRow, endRow);
    if (row < lostTo) {
      const fromLine = cap && cap.rows.length > 0 ? cap.rows[cap.rows.length - 1]!.lineNo + 1 : from.lineNo;
      parts.push({ gap: true, fromLine, toLine: Math.max(fromLine, h.firstLineNo - 1), chars: droppedChars });
      row = lostTo;
    }
  }

  const elided = budget !== undefined ? elide(em, row, endRow, budget) : null;
  if (elided) {
    parts.push(elided.head, elided.gap);
    row = elided.tailStart;
  }
  const live = row < endRow ? em.rowsBetween(row, endRow) : [];
  if (to && to.col > 0 && to.row >= row) live.push({ text: to.prefix, lineNo: to.lineNo });
  if (cursor && cursor.row >= row) {
    const at = live[cursor.row - row];
    if (at && at.text.length < cursor.prefix.length) at.text = cursor.prefix;
  }
  parts.push(live);

  const items: Item[] = [];
  let atFrom = true;
  for (const part of parts) {
    if (!Array.isArray(part)) {
      items.push(part);
      atFrom = false;
      continue;
    }
    let lines = rowsToLines(part);
    if (atFrom && lines.length > 0) {
      lines = trimPrefix(lines, from.prefix);
      atFrom = false;
    }
    items.push(...lines);
  }
  // Trailing blank rows are kept: the line break after an echo is how Enter shows up.
  return { items, droppedChars };
}

const SPACE = 0x20;

/** Elision applies from this many rows of history in range, per row of budget reach (below). */
const ELIDE_MIN_FACTOR = 4;

/**
 * For a long range of history, the rows that can possibly be shown: each shown line costs at
 * least one token, so no more than `budget` lines of each end are ever shown. The middle becomes a
 * kept gap (counted, not materialized: a 200,000-line `seq` is not turned into 200,000 objects).
 * Output with few distinct lines (`yes`) is not elided: collapsing shows all of it in a few lines.
 */
function elide(
  em: Emulator,
  from: number,
  endRow: number,
  budget: number,
): { head: Row[]; gap: Gap; tailStart: number } | null {
  const h = em.history;
  const reach = 2 * (budget + 1);
  const histEnd = Math.min(endRow, h.endRow);
  if (from < h.firstRow || histEnd - from < ELIDE_MIN_FACTOR * reach) return null;
  // Fewer rows still do when their lines cannot fit anyway: what render shows of either end fits in
  // `budget` tokens, and rows past that many tokens (a lower bound of render's count) never show.
  const shown = Math.max(MIN_TOKEN_BUDGET, budget);
  let headEnd = Math.min(from + reach, rowsWithin(h, from, histEnd, 1, shown));
  while (headEnd < histEnd && h.lineNo(headEnd) === h.lineNo(headEnd - 1)) headEnd++;
  let tailStart = Math.max(histEnd - reach, rowsWithin(h, histEnd - 1, from - 1, -1, shown) + 1);
  while (tailStart > headEnd && h.lineNo(tailStart) === h.lineNo(tailStart - 1)) tailStart--;
  if (tailStart - headEnd < reach) return null;
  // Distinct runs only need counting until they outnumber what could be shown.
  let runs = 0;
  let prev: string | null = null;
  for (let r = headEnd; r < tailStart && runs <= reach; r++) {
    const text = h.text(r);
    if (text !== prev) runs++;
    prev = text;
  }
  if (runs <= reach) return null;
  const chars = h.charsBetween(headEnd, tailStart);
  const fromLine = h.lineNo(headEnd);
  return {
    head: em.rowsBetween(from, headEnd),
    gap: { gap: true, kept: true, fromLine, toLine: h.lineNo(tailStart - 1), chars },
    tailStart,
  };
}

/**
 * Walking from row `start` by `step` (up to, not including, `stop`): the first row past the rows
 * whose lines are sure to cost more than `tokens` as render counts them (its estimate is at least
 * a quarter token per character plus one per line; a run of equal rows may collapse into one).
 */
function rowsWithin(h: RowHistory, start: number, stop: number, step: 1 | -1, tokens: number): number {
  let cost = 0;
  let prev: string | null = null;
  let r = start;
  for (; r !== stop && cost <= tokens; r += step) {
    const text = h.text(r);
    if (text === prev) continue;
    let chars = text.length;
    while (chars > 0 && text.charCodeAt(chars - 1) === SPACE) chars--; // render trims lines' ends
    cost += chars / 4 + (h.wrapped(r) ? 0 : 1);
    prev = text;
  }
  return r;
}

function trimPrefix<T extends { text: string }>(lines: T[], prefix: string): T[] {
  if (prefix.length === 0) return lines;
  const first = lines[0]!;
  // Rows are right-trimmed; pad so a prefix ending in blanks (">>> ") still matches.
  if (!first.text.padEnd(prefix.length).startsWith(prefix)) return lines;
  return [{ ...first, text: first.text.slice(prefix.length) }, ...lines.slice(1)];
}

/** The start of a position's row: a range ending there leaves out the row (a prompt drawn on it). */
export function rowStart(pos: Pos): Pos {
  return { row: pos.row, col: 0, prefix: "", lineNo: pos.lineNo };
}

/** Whether any item has visible text (or is a gap). */
export function hasContent(items: readonly Item[]): boolean {
  return items.some((it) => "gap" in it || it.text.trim().length > 0);
}

/** Plain text of items (lines joined by newlines), for echo stripping and `until` matching. */
export function itemsText(items: readonly Item[]): string {
  let out = "";
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    if (k > 0) out += "\n";
    if (!("gap" in it)) out += it.text;
  }
  return out;
}

/** Rows re-scanned before the new ones, so a match that spans a chunk boundary is still found. */
const SCAN_OVERLAP_ROWS = 8;

/** Text typed into the session and where its echo starts (see Session.lastTyped). */
export interface TypedEcho {
  at: Pos;
  text: string;
}

/**
 * Incremental text of the output after `from` (minus `skipChars` at its start: an echo), for
 * regex waits. Each call returns the text from a few rows before where the previous call ended,
 * so a wait over a flood of output costs linear, not quadratic, time. With `echo`, the echo of
 * that typed text is left out wherever it falls in the range: a wait must never be ended by the
 * command line that asks for the output it waits for (issue 21: a reader given the echo again,
 * after an answer that held it went unconfirmed, matched `until` in it).
 */
export class OutputScanner {
  private nextRow: number;
  /** The last row of the echo once it was seen whole; until then every scan looks from its start. */
  private echoEndRow = Infinity;
  private readonly echo: TypedEcho | null;
  constructor(
    private readonly em: Emulator,
    private readonly from: Pos,
    private readonly skipChars: number,
    echo: TypedEcho | null = null,
  ) {
    this.nextRow = from.row;
    this.echo = echo && !isBefore(echo.at, from) ? echo : null;
  }

  /** Text not yet scanned (with some overlap), or null when nothing new arrived. */
  next(): string {
    let startRow = Math.max(this.from.row, this.nextRow - SCAN_OVERLAP_ROWS);
    const echo = this.echo;
    if (echo && startRow <= this.echoEndRow) startRow = Math.min(startRow, echo.at.row);
    const atStart = startRow === this.from.row;
    const start: Pos = atStart ? this.from : { row: startRow, col: 0, prefix: "", lineNo: 0 };
    this.nextRow = this.em.contentEndRow();
    const text = echo && startRow <= echo.at.row ? this.textAroundEcho(start, echo) : this.textFrom(start);
    return atStart ? text.slice(this.skipChars) : text;
  }

  private textFrom(start: Pos): string {
    return itemsText(region(this.em, start, null).items);
  }

  /** The text before the echo and after it; only the part before while the echo is still arriving. */
  private textAroundEcho(start: Pos, echo: TypedEcho): string {
    const before = isBefore(start, echo.at) ? itemsText(region(this.em, start, echo.at).items) : "";
    const after = itemsText(region(this.em, echo.at, null).items);
    const state = stripEcho(after, echo.text, false);
    if (state.status === "pending") return before;
    if (state.status === "stripped") {
      const echoed = after.slice(0, after.length - state.rest.length);
      this.echoEndRow = echo.at.row + echoed.split("\n").length - 1;
    } else {
      this.echoEndRow = echo.at.row;
    }
    return before + state.rest;
  }
}

export function isBefore(a: Pos, b: Pos): boolean {
  return a.row < b.row || (a.row === b.row && a.col < b.col);
}

/** The first line `term_read mode:history` can still return: what `truncated` may name, and after. */
export function fetchableFrom(em: Emulator): number {
  return em.history.firstLineNo;
}
