/**
 * The line a session's line editor holds right now, as the screen shows it: the whole logical
 * line around the cursor (wrapped rows joined, text after the cursor included), without the
 * prompt when shell integration marked where the prompt ends.
 */
import type { Session } from "../session/session.ts";

export interface EditLine {
  /** The line's text (from the prompt's end when known, else the whole row with its prompt). */
  line: string;
  /** The cursor's offset in `line`. */
  cursor: number;
  /** `line` starts where the shell's prompt ends (a ready mark on this line). */
  promptKnown: boolean;
}

export function readEditLine(session: Session): EditLine {
  const em = session.emulator;
  const cursor = em.cursorPos();
  let first = cursor.row;
  while (first > 0 && em.lineNoOfRow(first - 1) === cursor.lineNo) first--;
  const rows = em.rowsBetween(first, em.contentEndRow()).filter((r) => r.lineNo === cursor.lineNo);
  // A wrapped row is full: its trailing blanks are part of the line.
  const text = rows.map((r, i) => (i < rows.length - 1 ? r.text.padEnd(session.cols) : r.text)).join("");
  const offset = (cursor.row - first) * session.cols + cursor.col;
  const line = text.padEnd(offset);
  const ready =
    session.integration !== "none" && session.inputReady
      ? session
          .marksAfter(0)
          .filter((m) => m.kind === "ready")
          .pop()
      : undefined;
  if (ready && ready.pos.row >= first && ready.pos.row <= cursor.row) {
    const promptEnd = (ready.pos.row - first) * session.cols + ready.pos.col;
    if (promptEnd <= offset) return { line: line.slice(promptEnd), cursor: offset - promptEnd, promptKnown: true };
  }
  return { line, cursor: offset, promptKnown: false };
}

/** A prompt at the start of a row we have no marks for: `$ `, `# `, `% `, `> `, `user@host:~$ `. */
const LEADING_PROMPT = /^[^$#%>\n]{0,80}?[$#%>❯»]\s/;

/**
 * The ways a line read with its prompt may be what was typed: as it is, and with a prompt-looking
 * start of each physical line removed (a continuation `> ` included).
 */
export function withoutPrompts(text: string): string[] {
  const stripped = text
    .split("\n")
    .map((l) => l.replace(LEADING_PROMPT, ""))
    .join("\n");
  return stripped === text ? [text] : [text, stripped];
}
