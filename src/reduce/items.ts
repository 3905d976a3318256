/**
 * Reducing a command's rendered lines before the token budget cuts them: the reducer sees the
 * whole output (a test run's failure is at its end, its passing lines before it), and the budget
 * then applies to what is left. Each reduced line keeps the history line number of the line it
 * came from, so a truncation note still names a history range (term_read mode "history") that
 * holds everything it left out.
 */
import type { Item, Line } from "../terminal/render.ts";
import { reduceOrSay } from "./reducers.ts";

/** What a reducer left, as lines to render, and the note for the result. */
export interface ReducedItems {
  items: Item[];
  note: string;
  /** A reducer rewrote the lines (else `items` are the originals and the note says why not). */
  reduced: boolean;
}

export function reduceItems(command: string, items: readonly Item[]): ReducedItems {
  const lines: Line[] = [];
  for (const it of items) {
    // Lines lost to the history limit before anyone read them cannot be reduced: say so.
    if ("gap" in it) {
      return { items: [...items], note: "not reduced: part of the output is no longer in history", reduced: false };
    }
    lines.push({ text: it.text.trimEnd(), lineNo: it.lineNo });
  }
  const r = reduceOrSay(command, lines.map((l) => l.text).join("\n"));
  if (r.text === null) return { items: [...items], note: r.note, reduced: false };
  return { items: attribute(lines, r.text.split("\n")), note: r.note, reduced: true };
}

/**
 * How far past the last source a rewritten line's source is looked for. Rewriting reducers work
 * line by line (grep, git log, git diff), so a rewrite's source is near; lines copied whole are
 * found at any distance through an index (a test run drops hundreds of passing lines in a row).
 */
const REWRITE_LOOKAHEAD_LINES = 64;

/**
 * Gives each reduced line the line number of the original it came from. Reducers keep the order
 * and either copy a line, cut it (grep's `12:text` from `path:12:text`) or extend it (git log's
 * author line): the first original at or after the last one used that equals the reduced line,
 * else (nearby) contains it or is contained in it, is its source. A blank or new line takes the
 * last source's number, so numbers never go back and an omitted range covers every line it
 * stands for.
 */
function attribute(original: readonly Line[], reduced: readonly string[]): Line[] {
  const where = new Map<string, number[]>();
  original.forEach((l, k) => {
    const list = where.get(l.text);
    if (list) list.push(k);
    else where.set(l.text, [k]);
  });
  const out: Line[] = [];
  let at = 0;
  for (const text of reduced) {
    const core = text.trim();
    if (core !== "") {
      const k = firstAtOrAfter(where.get(text), at) ?? nearbySource(original, at, core);
      if (k !== null) at = k;
    }
    out.push({ text, lineNo: original[at]?.lineNo ?? 0 });
  }
  return out;
}

/** The first index in an ascending list that is at least `from`. */
function firstAtOrAfter(list: readonly number[] | undefined, from: number): number | null {
  if (!list) return null;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length ? list[lo]! : null;
}

function nearbySource(original: readonly Line[], from: number, core: string): number | null {
  const end = Math.min(original.length, from + REWRITE_LOOKAHEAD_LINES);
  for (let k = from; k < end; k++) {
    const oCore = original[k]!.text.trim();
    if (oCore.includes(core) || (oCore !== "" && core.includes(oCore))) return k;
  }
  return null;
}
