/**
 * term_read: look without typing. `new` is this client's unread output (waiting briefly when
 * there is none yet), `screen` the visible screen, `diff` only the rows changed since this
 * client's last screen/diff read, `history` any range of retained lines by number.
 */
import { render, rowsToLines, type Item, type Truncation } from "../terminal/render.ts";
import type { Session } from "./session.ts";
import { fetchableFrom, hasContent, OutputScanner, region } from "./output.ts";
import { compileUntil, trimBlankTail } from "./send.ts";
import { awaitCompletion, exitCodeOf, viaOf, type Verdict, type Via } from "./completion.ts";
import { AppError } from "../errors.ts";
import { repeatNotice } from "./delivery.ts";

export type ReadMode = "new" | "screen" | "diff" | "history";

export interface ReadParams {
  mode: ReadMode;
  from?: number;
  to?: number;
  until?: string;
  wait_ms?: number;
  max_tokens: number;
}

export interface ReadResult {
  session: string;
  mode: ReadMode;
  output: string;
  state: string;
  alt_screen: boolean;
  cursor: { row: number; col: number };
  lines_total: number;
  dropped: number;
  /** Exit code of the session, or of the last command that finished in the output read (mode new). */
  exit_code: number | null;
  matched: string | null;
  via: Via | null;
  truncated: Truncation | null;
}

export async function readSession(
  session: Session,
  p: ReadParams,
  clientId: string,
  signal?: AbortSignal,
): Promise<ReadResult> {
  const until = compileUntil(p.until);
  if (p.mode !== "history" && (p.from !== undefined || p.to !== undefined)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      '`from`/`to` apply only to mode "history"',
      'Use mode:"history" with from/to line numbers (negative counts from the end).',
    );
  }
  const waitMs = p.wait_ms ?? (p.mode === "new" ? 2000 : 0);
  let matched: string | null = null;
  let via: Via | null = null;

  let verdict: Verdict | null = null;
  if (until || (p.mode === "new" && waitMs > 0)) {
    const callPos = session.emulator.cursorPos();
    const cursor = session.cursor(clientId);
    const scanner = new OutputScanner(session, callPos, 0);
    verdict = await awaitCompletion(session, {
      since: session.lastMarkSeq,
      fallback: until ? "none" : "coalesce",
      typed: null,
      until: until ? () => until.exec(scanner.next())?.[0] ?? null : undefined,
      hadUnread: hasContent(region(session, cursor.pos, null, null, Infinity, p.max_tokens).items),
      timeoutMs: waitMs,
      signal,
    });
    via = viaOf(session, verdict);
    matched = verdict.kind === "until" ? verdict.matched : null;
  }

  const em = session.emulator;
  let items: Item[];
  let dropped = 0;
  let lost: LostLines | null = null;
  // The session's, or that of a command whose end ended this wait.
  let exitCode: number | null = verdict ? exitCodeOf(session, verdict) : (session.exit?.exitCode ?? null);
  const cursor = session.cursor(clientId);
  let repeat: string | null = null;
  switch (p.mode) {
    case "new": {
      const again = session.repeatRange(clientId);
      if (again && again.toLine >= again.fromLine) repeat = repeatNotice(again.fromLine, again.toLine);
      const r = region(session, cursor.pos, null, cursor.capture, Infinity, p.max_tokens);
      items = r.items;
      // A command that finished in the unread output (perhaps while no client was connected).
      const cmd = session.command;
      if (exitCode === null && cmd?.end && cmd.end.row >= cursor.pos.row) exitCode = cmd.exitCode;
      dropped = r.droppedChars;
      session.setCursor(clientId, em.cursorPos());
      break;
    }
    case "screen": {
      const lines = trimBlankTail(em.screenLines());
      cursor.screen = em.screenLines();
      items = lines.map((text, i) => ({ text, lineNo: i + 1 }));
      break;
    }
    case "diff": {
      const now = em.screenLines();
      const before = cursor.screen;
      cursor.screen = now;
      items = [];
      for (let i = 0; i < now.length; i++) {
        if (before && before[i] === now[i]) continue;
        if (!before && now[i]!.trim().length === 0) continue;
        items.push({ text: `${String(i + 1).padStart(3)}| ${now[i]}`, lineNo: i + 1 });
      }
      break;
    }
    case "history": {
      const h = historyItems(session, p.from, p.to);
      items = h.items;
      lost = h.lost;
      // What buffer limits took from the range asked for (the history keeps no per-line count).
      if (lost) dropped = Math.max(1, session.emulator.history.evictedChars);
      break;
    }
  }
  const rendered = render(items, p.max_tokens, (t) => session.redact(t), fetchableFrom(session));
  if (lost) rendered.truncated = fetchableOnly(rendered.truncated, lost);
  if (repeat) rendered.output = `${repeat}\n${rendered.output}`;
  return {
    session: session.id,
    mode: p.mode,
    output: rendered.output,
    state: session.state(),
    alt_screen: em.altScreen,
    cursor: em.screenCursor(),
    lines_total: totalLines(session),
    dropped,
    exit_code: exitCode,
    matched,
    via,
    truncated: p.mode === "screen" || p.mode === "diff" ? null : rendered.truncated,
  };
}

function totalLines(session: Session): number {
  const em = session.emulator;
  return em.lineNoOfRow(em.contentEndRow() - 1);
}

/** Lines that history dropped (gone for good), in a range read with mode `history`. */
interface LostLines {
  fromLine: number;
  toLine: number;
}

/** Lines [from, to] of the retained history, 1-based and absolute; negatives count from the end. */
function historyItems(session: Session, from?: number, to?: number): { items: Item[]; lost: LostLines | null } {
  const em = session.emulator;
  const h = em.history;
  const total = totalLines(session);
  const resolve = (n: number) => (n < 0 ? total + 1 + n : n);
  const first = Math.max(1, resolve(from ?? 1));
  const last = Math.min(total, resolve(to ?? total));
  if (first > last) return { items: [], lost: null };
  const startRow = first <= h.lastLineNo ? h.rowOfLine(first) : h.endRow;
  const rows = em.rowsBetween(Math.max(startRow, h.firstRow), em.contentEndRow());
  const items: Item[] = [];
  const keptFrom = h.size > 0 ? h.firstLineNo : first;
  let lost: LostLines | null = null;
  if (first < keptFrom) {
    lost = { fromLine: first, toLine: Math.min(last, keptFrom - 1) };
    items.push({ gap: true, ...lost, chars: 0 });
  }
  for (const line of rowsToLines(rows)) {
    if (line.lineNo < first) continue;
    if (line.lineNo > last) break;
    items.push(line);
  }
  return { items, lost };
}

/**
 * `truncated` names lines that can be fetched with mode `history`. Lines history dropped cannot
 * be: the output says they are gone (and `dropped` counts them), so the range leaves them out.
 */
function fetchableOnly(t: Truncation | null, lost: LostLines): Truncation | null {
  if (!t || t.from_line > lost.toLine || t.to_line < lost.fromLine) return t;
  if (t.to_line <= lost.toLine) return null;
  const fromLine = lost.toLine + 1;
  return { ...t, omitted_lines: Math.max(0, t.omitted_lines - (fromLine - t.from_line)), from_line: fromLine };
}
