/**
 * Turning rendered rows into what a model reads: logical lines (soft wraps joined), trailing
 * blanks trimmed, runs of identical lines collapsed with a count, and a token budget that keeps
 * the head and the tail and says exactly what was left out and how to fetch it
 * (`term_read mode: "history"` with the reported line numbers). Only lines that history still
 * keeps are ever named as fetchable: lines it dropped, and the lines a command's head capture kept
 * after history dropped them, are said to be gone instead (issue #21: a `seq 1 300000` result
 * pointed at lines 4–299995, most of them long gone).
 */
import type { Row } from "./history.ts";

/** Runs of at least this many identical lines are collapsed into one line and a count. */
const COLLAPSE_MIN_RUN = 3;
/**
 * Share of the budget given to the head when output is cut; the tail gets the rest: that is where
 * errors, tracebacks and summaries are (a failing test run: hundreds of PASSED lines, then the failure).
 */
export const HEAD_SHARE = 0.2;
/** Room kept for the "omitted" notice itself (one that also says lines are gone is measured). */
const NOTICE_TOKENS = 40;
/** A budget below this cannot show anything useful; smaller requests are raised to it. */
export const MIN_TOKEN_BUDGET = 64;

export interface Line {
  text: string;
  /** Absolute history line number. */
  lineNo: number;
}

/**
 * Lines not given as text: evicted before anyone read them, or (`kept`) still in history but
 * left out up front because they could not fit the budget anyway.
 */
export interface Gap {
  gap: true;
  fromLine: number;
  toLine: number;
  chars: number;
  kept?: boolean;
}

export type Item = Line | Gap;

export interface Truncation {
  omitted_lines: number;
  from_line: number;
  to_line: number;
  original_tokens: number;
}

export interface Rendered {
  output: string;
  truncated: Truncation | null;
}

/**
 * Token estimate: about 4 ASCII characters per token, one token per other character (CJK,
 * emoji). Cheap and stable; used for budgets and for the honest `original_tokens` count.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 4) + other;
}

/** Tokens of lines known only by size: as for shown lines, the characters plus one per line break. */
function gapTokens(gap: Gap): number {
  return Math.ceil(gap.chars / 4) + (gap.toLine - gap.fromLine + 1);
}

/** Joins rows that share a line number (soft-wrapped rows) into logical lines. */
export function rowsToLines(rows: readonly Row[]): Line[] {
  const lines: Line[] = [];
  for (const row of rows) {
    const last = lines[lines.length - 1];
    if (last && last.lineNo === row.lineNo) last.text += row.text;
    else lines.push({ text: row.text, lineNo: row.lineNo });
  }
  return lines;
}

/** Drops empty lines at the end (the cursor's blank row, a trailing newline). */
export function trimTrailingBlank<T extends Item>(items: T[]): T[] {
  let end = items.length;
  while (end > 0) {
    const it = items[end - 1]!;
    if ("gap" in it || it.text.trim().length > 0) break;
    end--;
  }
  return end === items.length ? items : items.slice(0, end);
}

interface Entry {
  text: string;
  firstLine: number;
  lastLine: number;
  /** Original lines this entry stands for (a collapsed run counts each line). */
  lines: number;
  tokens: number;
  lost: boolean;
}

function collapse(items: readonly Item[]): Entry[] {
  const out: Entry[] = [];
  for (let k = 0; k < items.length; ) {
    const it = items[k]!;
    if ("gap" in it && it.kept) {
      // Always omitted: its tokens can never fit, so the cut below puts it in the omitted range.
      out.push({
        text: "",
        firstLine: it.fromLine,
        lastLine: it.toLine,
        lines: it.toLine - it.fromLine + 1,
        tokens: Number.POSITIVE_INFINITY,
        lost: false,
      });
      k++;
      continue;
    }
    if ("gap" in it) {
      const lines = it.toLine - it.fromLine + 1;
      const text =
        `[… ${lines} line${lines === 1 ? "" : "s"} (${it.fromLine}–${it.toLine}) were dropped before they ` +
        `could be read …]`;
      out.push({ text, firstLine: it.fromLine, lastLine: it.toLine, lines, tokens: estimateTokens(text), lost: true });
      k++;
      continue;
    }
    let run = 1;
    while (k + run < items.length) {
      const next = items[k + run]!;
      if ("gap" in next || next.text !== it.text) break;
      run++;
    }
    if (run >= COLLAPSE_MIN_RUN && it.text.length > 0) {
      const last = items[k + run - 1] as Line;
      const text = `${it.text}\n[… same line repeated ${run - 1} more times …]`;
      out.push({
        text,
        firstLine: it.lineNo,
        lastLine: last.lineNo,
        lines: run,
        tokens: estimateTokens(text),
        lost: false,
      });
      k += run;
    } else {
      out.push({
        text: it.text,
        firstLine: it.lineNo,
        lastLine: it.lineNo,
        lines: 1,
        tokens: estimateTokens(it.text) + 1,
        lost: false,
      });
      k++;
    }
  }
  return out;
}

interface LineRange {
  from: number;
  to: number;
}

/** At least what a notice that says lines are gone costs: every number in it as wide as the widest. */
function goneNoticeTokens(entries: readonly Entry[]): number {
  const n = entries[entries.length - 1]!.lastLine;
  const range = { from: n, to: n };
  // The line break after the notice counts too.
  return Math.max(NOTICE_TOKENS, estimateTokens(omittedNotice(n, range, range, range)) + 1);
}

/** The notice in place of omitted lines: what they were, which can be fetched, which are gone. */
function omittedNotice(lines: number, all: LineRange, fetchable: LineRange | null, gone: LineRange | null): string {
  const what = `[… ${lines} line${lines === 1 ? "" : "s"} omitted (lines ${all.from}–${all.to})`;
  const read = (r: LineRange) => `term_read mode:"history" from:${r.from} to:${r.to}`;
  if (!gone) return `${what}; read them with ${read(fetchable!)} …]`;
  const goneNote = `${gone.from}–${gone.to} gone from history`;
  if (!fetchable) return `${what}, ${goneNote}: they can no longer be read …]`;
  return `${what}, ${goneNote}; read the rest with ${read(fetchable)} …]`;
}

/** Number of runs of identical lines (what collapsing would leave), without allocating. */
function countRuns(items: readonly Item[]): number {
  let runs = 0;
  let prev: string | null = null;
  for (const it of items) {
    const text = "gap" in it ? null : it.text;
    if (text === null || text !== prev) runs++;
    prev = text;
  }
  return runs;
}

/** Estimate for many items at once: a native scan decides between the ASCII rule and the per-char count. */
function estimateItemsTokens(items: readonly Item[]): number {
  let tokens = 0;
  for (const it of items) {
    if ("gap" in it) tokens += gapTokens(it);
    else tokens += NON_ASCII.test(it.text) ? estimateTokens(it.text) + 1 : Math.ceil(it.text.length / 4) + 1;
  }
  return tokens;
}
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Applies collapsing and the token budget. `fetchableFrom`: the first line `term_read mode:history`
 * can still return (history's first kept line); lines before it, and lines of a dropped gap, are
 * never named in `truncated`.
 */
export function render(
  items: readonly Item[],
  maxTokens: number,
  redact?: (text: string) => string,
  fetchableFrom = 1,
): Rendered {
  const budget = Math.max(MIN_TOKEN_BUDGET, maxTokens);
  const trimmed = trimTrailingBlank(
    items.map((it) => ("gap" in it ? it : { text: it.text.trimEnd(), lineNo: it.lineNo })),
  );
  // Each shown line costs at least one token, so at most `budget` lines of each end can be shown:
  // a long output with little repetition only needs its two ends collapsed and measured.
  const reach = budget + 1;
  if (trimmed.length > 4 * reach && countRuns(trimmed) > 2 * reach && !trimmed.some((it) => "gap" in it)) {
    const head = trimmed.slice(0, reach) as Line[];
    const tail = trimmed.slice(trimmed.length - reach) as Line[];
    const middle = trimmed.slice(reach, trimmed.length - reach) as Line[];
    const skipped: Entry = {
      text: "",
      firstLine: middle[0]!.lineNo,
      lastLine: middle[middle.length - 1]!.lineNo,
      lines: middle.length,
      tokens: Number.POSITIVE_INFINITY,
      lost: false,
    };
    const entries = [...collapse(head), skipped, ...collapse(tail)];
    return cut(entries, budget, estimateItemsTokens(trimmed), redact, fetchableFrom);
  }
  const entries = collapse(trimmed);
  let originalTokens = 0;
  let total = 0;
  for (const e of entries) {
    // Gaps (lost or kept out) are counted from their characters below.
    if (!e.lost && Number.isFinite(e.tokens)) originalTokens += e.tokens;
    total += e.tokens;
  }
  for (const it of trimmed) if ("gap" in it) originalTokens += gapTokens(it);
  if (total <= budget) {
    // Everything is shown; a dropped gap shows as its own notice and names nothing to fetch.
    const output = entries.map((e) => e.text).join("\n");
    return { output: redact ? redact(output) : output, truncated: null };
  }
  return cut(entries, budget, originalTokens, redact, fetchableFrom);
}

/** Lines of `entries` before `line`, and from `line` on (a collapsed run may straddle it). */
function splitAt(entries: readonly Entry[], line: number): { before: number; from: number } {
  let before = 0;
  let from = 0;
  for (const e of entries) {
    const after = e.lastLine < line ? 0 : Math.min(e.lines, e.lastLine - Math.max(e.firstLine, line) + 1);
    from += after;
    before += e.lines - after;
  }
  return { before, from };
}

/** Keeps head and tail entries within the budget and reports the omitted middle. */
function cut(
  entries: Entry[],
  budget: number,
  originalTokens: number,
  redact: ((text: string) => string) | undefined,
  fetchableFrom: number,
): Rendered {
  // A dropped gap's lines, and every line before it (a head capture's), are gone from history.
  let firstFetchable = fetchableFrom;
  for (const e of entries) if (e.lost) firstFetchable = Math.max(firstFetchable, e.lastLine + 1);
  const anyGone = entries.length > 0 && entries[0]!.firstLine < firstFetchable;
  const room = budget - (anyGone ? goneNoticeTokens(entries) : NOTICE_TOKENS);
  const headRoom = Math.floor(room * HEAD_SHARE);
  let head = 0;
  let used = 0;
  while (head < entries.length && used + entries[head]!.tokens <= headRoom) used += entries[head++]!.tokens;
  let tail = entries.length;
  let tailUsed = 0;
  while (tail > head && used + tailUsed + entries[tail - 1]!.tokens <= room) tailUsed += entries[--tail]!.tokens;
  const omitted = entries.slice(head, tail);
  const from = omitted[0]!.firstLine;
  const to = omitted[omitted.length - 1]!.lastLine;
  const lines = splitAt(omitted, firstFetchable);
  const fetchable = lines.from > 0 ? { from: Math.max(from, firstFetchable), to, lines: lines.from } : null;
  const gone = lines.before > 0 ? { from, to: Math.min(to, firstFetchable - 1) } : null;
  const parts = entries.slice(0, head).map((e) => e.text);
  parts.push(omittedNotice(lines.before + lines.from, { from, to }, fetchable, gone));
  parts.push(...entries.slice(tail).map((e) => e.text));
  if (head === 0 && tail === entries.length) {
    // Not even one whole line fits (one huge line): show the end of the last one, cut.
    parts.push("…" + entries[entries.length - 1]!.text.slice(-Math.max(0, room) * 4));
  }
  const output = parts.join("\n");
  const truncated: Truncation | null = fetchable
    ? {
        omitted_lines: fetchable.lines,
        from_line: fetchable.from,
        to_line: fetchable.to,
        original_tokens: originalTokens,
      }
    : null;
  return { output: redact ? redact(output) : output, truncated };
}
