/**
 * What a client is shown of a full-screen program's screen: the trimmed rendering (trailing blanks
 * off each row and below the last row, runs of identical rows collapsed), or only the rows that
 * changed since this client last saw the screen, with their row numbers (term_read's `diff`).
 * term_send and term_exec answer with whichever is smaller and say which: a keystroke in vim then
 * costs the rows it changed, not the whole screen (issue 22). Spans a program highlights by colour
 * alone (a selection bar) are marked ⟦so⟧ (terminal/highlight.ts): moving one changes rows.
 */
import { render, type Item } from "../terminal/render.ts";
import type { Session } from "./session.ts";

export type ScreenMode = "screen" | "diff";

export interface ScreenView {
  text: string;
  mode: ScreenMode;
}

/** The trimmed screen as items to render, rows numbered from 1. */
export function screenItems(lines: readonly string[]): Item[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim().length === 0) end--;
  return lines.slice(0, end).map((text, i) => ({ text, lineNo: i + 1 }));
}

/** The rows of `now` that differ from `before` as "  3| text" (all non-blank rows without a before). */
export function diffItems(before: readonly string[] | null, now: readonly string[]): Item[] {
  const items: Item[] = [];
  for (let i = 0; i < now.length; i++) {
    if (before && before[i] === now[i]) continue;
    if (!before && now[i]!.trim().length === 0) continue;
    items.push({ text: `${String(i + 1).padStart(3)}| ${now[i]}`, lineNo: i + 1 });
  }
  return items;
}

/**
 * The screen for this client, as the smaller of the full rendering and the diff against what it
 * last saw; records that it has now seen this screen. A client that saw none (or a screen of
 * another size) gets the full rendering.
 */
export function screenForClient(session: Session, clientId: string, maxTokens: number): ScreenView {
  const now = session.emulator.markedScreenLines();
  const cursor = session.cursor(clientId);
  const before = cursor.screen;
  cursor.screen = now;
  const full = render(screenItems(now), maxTokens, (t) => session.redact(t)).output;
  if (!before || before.length !== now.length) return { text: full, mode: "screen" };
  const diff = render(diffItems(before, now), maxTokens, (t) => session.redact(t)).output;
  return diff.length < full.length ? { text: diff, mode: "diff" } : { text: full, mode: "screen" };
}
