/**
 * term_send: type text and/or keys, then wait for what appears. What ends the wait, in order:
 * the program exits (via "exit"); the `until` regex matches output that appeared after the send,
 * echo excluded (via "until"); without `until`: a shell reports the typed command finished
 * (via "shell"), the program settles at a prompt, password, yes/no or pager (via "prompt"), or
 * output stops changing (via "settle", reported as such: a guess, not a completion signal).
 */
import { AppError } from "../errors.ts";
import { encodeKeys, isBreakKey } from "../terminal/keys.ts";
import { render, type Truncation } from "../terminal/render.ts";
import type { Session } from "./session.ts";
import { waitFor } from "./wait.ts";
import { itemsText, OutputScanner, region } from "./output.ts";
import { dropChars, withoutEcho } from "./echo-items.ts";
import type { Pos } from "../terminal/emulator.ts";
import type { Item } from "../terminal/render.ts";
import { waitForPromptDrawn } from "./ready.ts";

/** A prompt-like last line must stay unchanged this long before we believe it. */
export const PROMPT_QUIET_MS = 60;
/** Without a better signal, output that stopped changing for this long is "settled". */
export const SETTLE_QUIET_MS = 300;
/** When nothing at all appears after the input, give up waiting after this long. */
export const NOTHING_SETTLE_MS = 600;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

export interface SendParams {
  text?: string;
  enter?: boolean;
  keys?: string[];
  until?: string;
  wait_ms: number;
  max_tokens: number;
}

export type Via = "exit" | "shell" | "until" | "prompt" | "settle" | "timeout";

export interface SendResult {
  session: string;
  output: string;
  screen: string | null;
  state: string;
  matched: string | null;
  via: Via;
  exit_code: number | null;
  alt_screen: boolean;
  cursor: { row: number; col: number };
  truncated: Truncation | null;
}

export function compileUntil(until: string | undefined): RegExp | null {
  if (until === undefined) return null;
  if (until.length === 0) throw new AppError("INVALID_REGEX", "`until` is empty", "Give a regular expression to wait for, e.g. \"\\\\$ $\" or \">>> \".");
  try {
    return new RegExp(until, "m");
  } catch (err) {
    throw new AppError("INVALID_REGEX", `invalid regular expression in \`until\`: ${(err as Error).message}`, "Use JavaScript regex syntax; escape literal characters like ( [ . * + ? with a backslash.");
  }
}

/** The bytes for text (+Enter) and keys. Validates everything first; throws before any write. */
export function inputBytes(session: Session, p: Pick<SendParams, "text" | "enter" | "keys">): string {
  const keys = p.keys && p.keys.length > 0 ? encodeKeys(p.keys, { applicationCursorKeys: session.emulator.applicationCursorKeys }) : "";
  let text = p.text ?? "";
  // Multi-line text is pasted as one unit when the program asked for bracketed paste (shells, editors).
  if (text.includes("\n") && session.emulator.bracketedPaste) text = PASTE_START + text + PASTE_END;
  else text = text.replace(/\r?\n/g, "\r");
  const enter = p.enter ?? p.text !== undefined;
  return text + (enter ? "\r" : "") + keys;
}

interface Outcome {
  via: Via;
  matched: string | null;
  /** The typed command's exit status, when a shell reported it. */
  exitCode?: number | null;
  /** Where the shell said the command ended (its output stops there). */
  end?: Pos;
}

export async function sendInput(session: Session, p: SendParams, clientId: string, signal?: AbortSignal): Promise<SendResult> {
  if (p.text === undefined && (!p.keys || p.keys.length === 0)) {
    throw new AppError("INVALID_ARGUMENT", "nothing to send", "Give `text` (typed literally, Enter pressed after it by default) and/or `keys` (e.g. [\"ctrl+c\"]).");
  }
  const until = compileUntil(p.until);
  const bytes = inputBytes(session, p);
  session.assertAlive();
  const sendBreak = p.keys?.some(isBreakKey) ?? false;
  if (sendBreak) session.assertCanBreak();

  await waitForPromptDrawn(session, Math.min(p.wait_ms, 1000), signal);
  const from = session.emulator.cursorPos();
  const capture = session.captureFrom(from);
  const seq0 = session.lastMarkSeq;
  // A command already running (e.g. we answer its prompt or send ctrl+c) ends with a lone end mark.
  const wasRunning = session.phase === "running";
  const startedInAlt = session.emulator.altScreen;
  const sent = p.text ?? null;
  const enter = p.enter ?? p.text !== undefined;
  const sentAt = Date.now();
  const bytesAtSend = session.emulator.bytesIn;
  const screenBefore = session.emulator.screenLines().join("\n");
  const untilMatchedBefore = until !== null && session.emulator.altScreen && until.test(screenBefore);
  // How many characters at the start of the output are the echo of `text` (null: not known yet).
  let echoChars: number | null = startedInAlt || !sent ? 0 : null;
  let scanner: OutputScanner | null = null;
  const echoRows = Math.ceil((from.col + (sent?.length ?? 0)) / session.cols) + (sent?.split("\n").length ?? 1) + 2;
  try {
    session.write(bytes);
    if (sendBreak) await session.sendBreak();
    const outcome = await waitFor<Outcome>(
      session,
      () => {
        const marks = session.marksAfter(seq0);
        const end = marks.find((m) => m.kind === "end" && (wasRunning || marks.some((s) => s.kind === "start" && s.seq < m.seq)));
        if (echoChars === null) {
          // Only the first rows can hold the echo: look at those, not at everything since.
          const headItems = region(session, from, null, capture, echoRows).items;
          const head = withoutEcho(headItems, sent, enter);
          if (!head.pending) echoChars = head.echoed ? itemsText(headItems).length - head.text.length : 0;
        }
        if (until && echoChars !== null) {
          scanner ??= new OutputScanner(session, from, echoChars);
          const m = until.exec(scanner.next());
          if (m) return { done: { via: "until", matched: m[0] } };
        }
        if (until && session.emulator.altScreen) {
          // Full-screen apps: match the screen, unless it already matched before this call.
          const m = until.exec(session.emulator.screenLines().join("\n"));
          if (m && !untilMatchedBefore) return { done: { via: "until", matched: m[0] } };
        }
        if (session.exit) return { done: { via: "exit", matched: null } };
        if (until) return null;
        if (end) return { done: { via: "shell", matched: null, exitCode: end.exitCode, end: end.pos } };
        // The rest needs a pause in the output; classifying every chunk of a flood would be waste.
        const quietFor = Date.now() - session.lastOutputAt;
        const waited = Date.now() - sentAt;
        const anything = session.emulator.bytesIn > bytesAtSend;
        if (!anything) return waited >= NOTHING_SETTLE_MS ? { done: { via: "settle", matched: null } } : { retryInMs: NOTHING_SETTLE_MS - waited };
        if (quietFor < PROMPT_QUIET_MS) return { retryInMs: PROMPT_QUIET_MS - quietFor };
        const visible = echoChars !== null && itemsText(region(session, from, null, capture).items).slice(echoChars).trim().length > 0;
        const produced = visible || session.emulator.screenLines().join("\n") !== screenBefore;
        if (!produced) return waited >= NOTHING_SETTLE_MS ? { done: { via: "settle", matched: null } } : { retryInMs: NOTHING_SETTLE_MS - waited };
        if (session.state() !== "running" && !session.emulator.altScreen) return { done: { via: "prompt", matched: null } };
        return quietFor >= SETTLE_QUIET_MS ? { done: { via: "settle", matched: null } } : { retryInMs: SETTLE_QUIET_MS - quietFor };
      },
      { timeoutMs: p.wait_ms, signal },
    );
    const result: Outcome = outcome === "timeout" ? { via: "timeout", matched: null } : outcome;
    const items = dropChars(region(session, from, result.end ?? null, capture, Infinity, p.max_tokens).items, echoChars ?? 0);
    return finishSend(session, items, result, clientId, p.max_tokens);
  } finally {
    session.release(capture);
  }
}

function finishSend(session: Session, items: Item[], outcome: Outcome, clientId: string, maxTokens: number): SendResult {
  const em = session.emulator;
  const alt = em.altScreen;
  const rendered = render(items, maxTokens, (t) => session.redact(t));
  session.setCursor(clientId, em.cursorPos());
  const screen = alt ? session.redact(trimBlankTail(em.screenLines()).join("\n")) : null;
  return {
    session: session.id,
    output: rendered.output,
    screen,
    state: session.state(),
    matched: outcome.matched,
    via: outcome.via,
    exit_code: session.exit ? session.exit.exitCode : (outcome.exitCode ?? null),
    alt_screen: alt,
    cursor: em.screenCursor(),
    truncated: rendered.truncated,
  };
}

export function trimBlankTail(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim().length === 0) end--;
  return lines.slice(0, end);
}
