/**
 * The reference for highlighted spans (issue 36 item 4): tmux's `capture-pane -e -p`, whose SGR
 * sequences give each cell's reverse video and background as tmux's own terminal understood
 * them. Parsed here independently of ptyhub's emulator, then the same rule picks the highlight
 * (highlightedCells: rare looks, and the backdrop's look inside a box). The result is
 * what each row has highlighted, as the texts of its runs, for comparison with ptyhub's ⟦marks⟧.
 */
import { highlightedCells } from "../../src/terminal/highlight.ts";

const SO = "\x0e";
const SI = "\x0f";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are the input
const SGR_OR_CHAR = /\x1b\[([0-9;:]*)m|([\s\S])/gu;

interface Look {
  reverse: boolean;
  bg: string;
}

/** The look after one SGR sequence's parameters (only what a highlight is: reverse and background). */
function applySgr(look: Look, params: string): Look {
  const p = params === "" ? [0] : params.split(/[;:]/).map(Number);
  let { reverse, bg } = look;
  for (let k = 0; k < p.length; k++) {
    const n = p[k]!;
    if (n === 0) {
      reverse = false;
      bg = "default";
    } else if (n === 7) reverse = true;
    else if (n === 27) reverse = false;
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) bg = String(n);
    else if (n === 49) bg = "default";
    else if (n === 48 && p[k + 1] === 5) {
      bg = `5;${p[k + 2]}`;
      k += 2;
    } else if (n === 48 && p[k + 1] === 2) {
      bg = `2;${p[k + 2]};${p[k + 3]};${p[k + 4]}`;
      k += 4;
    } else if (n === 38) k += p[k + 1] === 5 ? 2 : p[k + 1] === 2 ? 4 : 0;
  }
  return { reverse, bg };
}

const PLAIN = "0:default";
const keyOf = (l: Look) => `${l.reverse ? 1 : 0}:${l.bg}`;

/** Per row, the texts of its highlighted runs (blanks at a run's ends trimmed; runs of blanks left out). */
export function tmuxHighlights(captured: string, cols: number): string[][] {
  const rows = captured.replace(/\n$/, "").split("\n");
  const cells: Array<Array<{ ch: string; look: string }>> = [];
  let look: Look = { reverse: false, bg: "default" };
  for (const row of rows) {
    const line: Array<{ ch: string; look: string }> = [];
    let endsInSgr = false;
    for (const m of row.matchAll(SGR_OR_CHAR)) {
      endsInSgr = m[1] !== undefined;
      if (m[1] !== undefined) {
        look = applySgr(look, m[1]);
        continue;
      }
      const ch = m[2]!;
      if (ch === SO || ch === SI) continue;
      line.push({ ch, look: keyOf(look) });
      // A wide character takes two columns: its second, empty, in the same look.
      if (Bun.stringWidth(ch) === 2) line.push({ ch: "", look: keyOf(look) });
    }
    // tmux leaves out the blanks that end a row. Where they are drawn in a look of their own it
    // writes that look's SGR before leaving them out (the dialog's backdrop to the edge); where
    // nothing follows the last character they are the terminal's plain blanks (less's (END)).
    for (let x = line.length; x < cols; x++) line.push({ ch: " ", look: endsInSgr ? keyOf(look) : PLAIN });
    cells.push(line);
  }
  const lit = highlightedCells(
    cells.map((line) => line.map((c) => c.look)),
    PLAIN,
  );
  return cells.map((line, y) => {
    const runs: string[] = [];
    let run = "";
    for (const [x, c] of [...line, { ch: "", look: PLAIN }].entries()) {
      if (lit[y]![x]) run += c.ch;
      else {
        if (run.trim().length > 0) runs.push(run.trim());
        run = "";
      }
    }
    return runs;
  });
}

/** Per row, the texts ptyhub marked ⟦so⟧ (trimmed as the reference's are). */
export function markedHighlights(rows: readonly string[]): string[][] {
  return rows.map((r) => [...r.matchAll(/⟦([^⟧]*)⟧/g)].map((m) => m[1]!.trim()));
}
