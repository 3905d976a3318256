/**
 * The highlight a TUI draws only with colour (issue 36 item 4): htop's selection bar, a dialog or
 * whiptail menu's current item, fzf's current line, vim's visual selection, less's search matches.
 * Plain text drops it, so `down` in htop read as "no rows changed". The screen the model reads
 * marks each highlighted span as ⟦text⟧, so the selection shows, and a moved selection changes
 * the rows a diff reports.
 *
 * What counts as highlighted: cells whose look (reverse video, background colour) is rare on the
 * screen. The looks that cover a large share of it are surfaces — the terminal's background,
 * mc's blue panels, a dialog's grey box — and a surface is no highlight however coloured. The
 * rest stands out from what it is drawn on: a bar, a current item, a match. Runs of blanks alone
 * are not marked (an empty coloured area says nothing), and blanks closing a run stay outside it.
 */
import type { IBuffer, IBufferCell } from "@xterm/headless";

export const HIGHLIGHT_OPEN = "⟦";
export const HIGHLIGHT_CLOSE = "⟧";

/** A look covering at least this share of the screen's cells is a surface, not a highlight. */
export const SURFACE_SHARE = 0.15;

/** A cell's look: reverse video and its background (mode and colour). */
function lookOf(cell: IBufferCell): string {
  return `${cell.isInverse() ? 1 : 0}:${cell.getBgColorMode()}:${cell.getBgColor()}`;
}

/** The default look: no reverse video, the terminal's own background. */
const PLAIN_LOOK = "0:0:0";

/**
 * Which cells are highlighted, given each cell's look (any string per distinct look; `plain` is
 * the terminal's own). A look that is not plain is a highlight when it is rare on the screen (less
 * than SURFACE_SHARE of its cells). A surface's look is one too where a run of it sits inside a
 * run of a less common look on its row: the backdrop showing through a box is how dialog draws
 * its current item (blue on the grey box, the blue of the screen around it).
 */
export function highlightedCells(looks: readonly (readonly string[])[], plain: string): boolean[][] {
  const count = new Map<string, number>();
  let cells = 0;
  for (const row of looks) {
    for (const look of row) count.set(look, (count.get(look) ?? 0) + 1);
    cells += row.length;
  }
  const surface = cells * SURFACE_SHARE;
  const n = (look: string | undefined) => (look === undefined ? 0 : (count.get(look) ?? 0));
  return looks.map((row) => {
    const lit = row.map((look) => look !== plain && n(look) < surface);
    let x = 0;
    while (x < row.length) {
      let end = x;
      while (end < row.length && row[end] === row[x]) end++;
      const [before, after] = [row[x - 1], row[end]];
      if (row[x] !== plain && before !== undefined && before === after && n(before) < n(row[x])) {
        for (let k = x; k < end; k++) lit[k] = true;
      }
      x = end;
    }
    return lit;
  });
}

/**
 * The screen's rows (of `buffer`, the active one, from its top `baseY`) as text, each
 * highlighted span wrapped in ⟦ ⟧; trailing blanks trimmed as screenLines does.
 */
export function markedRows(buffer: IBuffer, rows: number, cols: number): string[] {
  const looks: string[][] = [];
  const chars: string[][] = [];
  const cell = buffer.getNullCell();
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    const rowLooks: string[] = [];
    const rowChars: string[] = [];
    for (let x = 0; x < cols; x++) {
      const c = line?.getCell(x, cell);
      const width = c?.getWidth() ?? 1;
      // The second half of a wide character: drawn by the first.
      if (width === 0) continue;
      const look = c ? lookOf(c) : PLAIN_LOOK;
      rowChars.push(c ? c.getChars() || " " : " ");
      // A wide character counts for both its columns, as on the screen.
      for (let k = 0; k < width; k++) rowLooks.push(look);
      if (width === 2) rowChars.push("");
    }
    looks.push(rowLooks);
    chars.push(rowChars);
  }
  const lit = highlightedCells(looks, PLAIN_LOOK);
  return chars.map((rowChars, y) => markRow(rowChars, lit[y]!));
}

/** One row's text with each run of highlighted cells (blanks at its end left outside) in ⟦ ⟧. */
function markRow(chars: readonly string[], lit: readonly boolean[]): string {
  let out = "";
  let x = 0;
  while (x < chars.length) {
    if (!lit[x]) {
      out += chars[x];
      x++;
      continue;
    }
    let end = x;
    while (end < chars.length && lit[end]) end++;
    const run = chars.slice(x, end).join("");
    const text = run.trimEnd();
    out += text.trim().length === 0 ? run : `${HIGHLIGHT_OPEN}${text}${HIGHLIGHT_CLOSE}${run.slice(text.length)}`;
    x = end;
  }
  return out.trimEnd();
}
