/**
 * term_read: look without typing. `new` is this client's unread output (waiting briefly when
 * there is none yet), `screen` the visible screen, `diff` only the rows changed since this
 * client's last screen/diff read, `history` any range of retained lines by number.
 */
import type { readOutput } from "../api/methods/read.ts";
import type { z } from "zod";
import { render, rowsToLines, type Item, type Truncation } from "../terminal/render.ts";
import type { Session } from "./session.ts";
import { fetchableFrom, hasContent, isBefore, OutputScanner, region, type Region } from "../terminal/output-region.ts";
import type { ReadCursor } from "./read-cursors.ts";
import { compileUntil, lastLine } from "./send.ts";
import { diffItems, screenItems } from "./screen-view.ts";
import { awaitCompletion, exitCodeOf, viaOf, withNearEnd, type Verdict, type Via } from "./completion.ts";
import { promptStart } from "./prompt-line.ts";
import { AppError } from "../api/errors.ts";
import { withoutEcho } from "./echo-items.ts";
import type { Pos } from "../terminal/emulator.ts";
import type { RawLines } from "./raw-output.ts";
import { repeatNotice } from "./delivery.ts";
import { LATE_ECHO_HOLD_MS, LateEchoFilter } from "../terminal/late-echo.ts";
import type { CallerPattern } from "../terminal/pattern.ts";

export type ReadMode = "new" | "screen" | "diff" | "history";

export interface ReadParams {
  mode: ReadMode;
  from?: number;
  to?: number;
  until?: string;
  wait_ms?: number;
  /** new/history: the output as the program sent it, escape sequences kept. */
  raw?: boolean;
  max_tokens: number;
}

/** term_read's result: the one definition is its schema (src/api/methods/read.ts). */
export type ReadResult = z.output<typeof readOutput>;

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
  if (p.raw && p.mode !== "new" && p.mode !== "history") {
    throw new AppError(
      "INVALID_ARGUMENT",
      '`raw` applies to modes "new" and "history"',
      'The screen is a rendering, not bytes: use mode:"new" or "history" with raw:true.',
    );
  }
  const waitMs = p.wait_ms ?? (p.mode === "new" ? 2000 : 0);
  let matched: string | null = null;
  let via: Via | null = null;

  let verdict: Verdict | null = null;
  if (until || (p.mode === "new" && waitMs > 0)) {
    const cursor = session.cursor(clientId);
    // `until` looks at all this client has not read yet, what came before the call included
    // (issue 21: a line printed during a reconnect, or after term_exec timed out, was missed).
    // Neither the echo of the line typed last nor its late echo (see late-echo.ts) ends the wait.
    const typed = session.lastTyped;
    const scanner = new OutputScanner(session.emulator, cursor.pos, 0, typed);
    const lateEcho = typed ? new LateEchoFilter(lastLine(typed.text), true) : null;
    let heldUntil: number | null = null;
    const matchUntil = (pattern: CallerPattern): string | null => {
      let text = scanner.next();
      if (lateEcho) {
        const f = lateEcho.filter(text, Date.now() - session.lastOutputAt);
        heldUntil = f.held ? session.lastOutputAt + LATE_ECHO_HOLD_MS : null;
        text = f.text;
      }
      return pattern.exec(text)?.[0] ?? null;
    };
    const since = session.lastMarkSeq;
    verdict = await awaitCompletion(session, {
      since,
      fallback: until ? "none" : "coalesce",
      typed: null,
      until: until ? () => matchUntil(until) : undefined,
      untilHeldMs: () => (heldUntil === null ? null : Math.max(1, heldUntil - Date.now())),
      hadUnread: hasContent(region(session.emulator, cursor.pos, null, null, Infinity, p.max_tokens).items),
      produced: p.mode === "new" ? moreThanEcho(session, cursor.pos) : undefined,
      timeoutMs: waitMs,
      signal,
    });
    // A match just before the command's end: the answer carries that end (issue 36 item 1).
    verdict = await withNearEnd(session, verdict, since, signal);
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
      if (p.raw) {
        ({ items, dropped } = rawItems(session.rawOutput.since(cursor.rawAt)));
        session.setCursor(clientId, em.cursorPos());
        break;
      }
      const again = session.repeatRange(clientId);
      if (again && again.toLine >= again.fromLine) repeat = repeatNotice(again.fromLine, again.toLine);
      const r = unreadRegion(session, cursor, p.max_tokens);
      items = r.items;
      // A command that finished in the unread output (perhaps while no client was connected); one
      // that ended before this client's last read was told then (by term_exec, or that read).
      const cmd = session.command;
      if (exitCode === null && cmd?.endSeq != null && cmd.endSeq > cursor.markSeq) exitCode = cmd.exitCode;
      dropped = r.droppedChars;
      session.setCursor(clientId, em.cursorPos());
      break;
    }
    case "screen": {
      cursor.screen = em.markedScreenLines();
      items = screenItems(cursor.screen);
      break;
    }
    case "diff": {
      const now = em.markedScreenLines();
      items = diffItems(cursor.screen, now);
      cursor.screen = now;
      break;
    }
    case "history": {
      if (p.raw) {
        ({ items, dropped } = rawItems(session.rawOutput.range(p.from, p.to)));
        break;
      }
      const h = historyItems(session, p.from, p.to);
      items = h.items;
      lost = h.lost;
      // What buffer limits took from the range asked for (the history keeps no per-line count).
      if (lost) dropped = Math.max(1, session.emulator.history.evictedChars);
      break;
    }
  }
  const rendered = render(items, p.max_tokens, (t) => session.redact(t), fetchableFrom(session.emulator));
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

/**
 * This client's unread output. Back at the shell's prompt it ends where the command did, as
 * term_exec's does (prompt-line.ts): the prompt is not output, also when part of it was read.
 */
function unreadRegion(session: Session, cursor: ReadCursor, budget: number): Region {
  const prompt = promptStart(session);
  if (prompt && isBefore(prompt, cursor.pos)) return { items: [], droppedChars: 0 };
  return region(session.emulator, cursor.pos, prompt, cursor.capture, Infinity, budget);
}

/** Rows past an echo's own that are looked at for output after it. */
const ECHO_SLACK_ROWS = 2;

/**
 * For a `new` wait: whether the unread output (from `from`) is more than the echo of the line
 * last typed into the session. A term_exec or term_send that returned before its echo leaves a
 * reader only the command line, and settling on it answered nothing (issue 21 item 4): the wait
 * goes on for the program's output, a mark or the timeout. Output unread from before the line
 * was typed counts as output. Once true, stays true (checked per chunk, so it must stay cheap).
 */
function moreThanEcho(session: Session, from: Pos): () => boolean {
  const typed = session.lastTyped;
  if (!typed || isBefore(typed.at, from)) return () => true;
  if (hasContent(region(session.emulator, from, typed.at).items)) return () => true;
  const echoRows =
    Math.ceil((typed.at.col + typed.text.length) / session.cols) + typed.text.split("\n").length + ECHO_SLACK_ROWS;
  let seen = false;
  return () => {
    if (seen) return true;
    const head = withoutEcho(region(session.emulator, typed.at, null, null, echoRows).items, typed.text, true);
    if (head.pending) return false;
    const beyond = session.emulator.contentEndRow() > typed.at.row + echoRows;
    seen = beyond || hasContent(head.items);
    return seen;
  };
}

/** A raw read's lines as render items, and the bytes it could not return (no longer kept). */
function rawItems(raw: RawLines): { items: Item[]; dropped: number } {
  return { items: raw.lines, dropped: raw.lostBytes };
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
