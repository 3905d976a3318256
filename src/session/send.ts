/**
 * term_send: type text and/or keys, then wait for what appears. The wait ends as every wait does
 * (completion.ts): the `until` regex matches output that appeared after the send, echo excluded
 * (via "until"); the program exits (via "exit"); the shell reports that the command it runs
 * ended — the typed one, or one this input interrupted — with its exit code (via "shell"; with
 * `until`, matched is then null: the pattern was not seen), refused the line, or waits at a
 * continuation prompt (state "continuation"); without `until`: the program settles at a prompt,
 * password, yes/no or pager (via "prompt"), or output stops changing (via "settle", reported as
 * such: a guess, not a completion signal).
 */
import type { sendOutput } from "../api/methods/send.ts";
import type { z } from "zod";
import { AppError } from "../api/errors.ts";
import { encodeKeys, isBreakKey } from "../terminal/keys.ts";
import { render } from "../terminal/render.ts";
import { splitJobNotices } from "../terminal/job-notices.ts";
import type { Session } from "./session.ts";
import { carriesInterrupt } from "../terminal/interrupt.ts";
import { fetchableFrom, itemsText, OutputScanner, region, rowStart } from "../terminal/output-region.ts";
import { dropChars, withoutEcho } from "./echo-items.ts";
import type { Pos } from "../terminal/emulator.ts";
import type { Item } from "../terminal/render.ts";
import { waitForPromptDrawn } from "./ready.ts";
import { awaitCompletion, CONTINUATION_HINT, exitCodeOf, viaOf, type Verdict, type Via } from "./completion.ts";
import { CallerPattern } from "../terminal/pattern.ts";
import { looksLikePrompt } from "../terminal/classify.ts";
import { isLateEcho, LATE_ECHO_HOLD_MS, LateEchoFilter } from "../terminal/late-echo.ts";
import { screenForClient } from "./screen-view.ts";

export type { Via };

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

/** term_send's result: the one definition is its schema (src/api/methods/send.ts). */
export type SendResult = z.output<typeof sendOutput>;

/** Compiles a caller's `until` pattern (linear-time RE2 semantics: src/terminal/pattern.ts). */
/**
 * Patterns compiled lately, by their text: the host checks a call's `until` before it looks the
 * session up, and the wait compiles it again; agents also repeat the same few patterns.
 */
const COMPILED_UNTIL_KEPT = 32;
const compiledUntil = new Map<string, CallerPattern>();

export function compileUntil(until: string | undefined): CallerPattern | null {
  if (until === undefined) return null;
  const known = compiledUntil.get(until);
  if (known) return known;
  const compiled = CallerPattern.compile(until);
  compiledUntil.set(until, compiled);
  if (compiledUntil.size > COMPILED_UNTIL_KEPT) compiledUntil.delete(compiledUntil.keys().next().value ?? until);
  return compiled;
}

/** The bytes for text (+Enter) and keys. Validates everything first; throws before any write. */
export function inputBytes(session: Session, p: Pick<SendParams, "text" | "enter" | "keys">): string {
  const keys =
    p.keys && p.keys.length > 0
      ? encodeKeys(p.keys, { applicationCursorKeys: session.emulator.applicationCursorKeys })
      : "";
  let text = p.text ?? "";
  // Multi-line text is pasted as one unit when the program asked for bracketed paste (shells, editors).
  if (text.includes("\n") && session.emulator.bracketedPaste) text = PASTE_START + text + PASTE_END;
  else text = text.replace(/\r?\n/g, "\r");
  const enter = p.enter ?? p.text !== undefined;
  return text + (enter ? "\r" : "") + keys;
}

export async function sendInput(
  session: Session,
  p: SendParams,
  clientId: string,
  signal?: AbortSignal,
): Promise<SendResult> {
  if (p.text === undefined && (!p.keys || p.keys.length === 0)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "nothing to send",
      'Give `text` (typed literally, Enter pressed after it by default) and/or `keys` (e.g. ["ctrl+c"]).',
    );
  }
  const until = compileUntil(p.until);
  const bytes = inputBytes(session, p);
  session.assertAlive();
  const sendBreak = p.keys?.some(isBreakKey) ?? false;
  if (sendBreak) assertCanBreak(session);

  await waitForPromptDrawn(session, Math.min(p.wait_ms, 1000), signal);
  const from = session.emulator.cursorPos();
  const editorReady = session.inputReady;
  const capture = session.captureFrom(from);
  const seq0 = session.lastMarkSeq;
  const startedInAlt = session.emulator.altScreen;
  const sent = p.text ?? null;
  const enter = p.enter ?? p.text !== undefined;
  const screenBefore = session.emulator.screenLines().join("\n");
  const untilMatchedBefore = until !== null && session.emulator.altScreen && until.test(screenBefore);
  // How many characters at the start of the output are the echo of `text` (null: not known yet).
  let echoChars: number | null = startedInAlt || !sent ? 0 : null;
  let scanner: OutputScanner | null = null;
  const echoRows = Math.ceil((from.col + (sent?.length ?? 0)) / session.cols) + (sent?.split("\n").length ?? 1) + 2;
  const findEcho = () => {
    if (echoChars !== null) return;
    // Only the first rows can hold the echo: look at those, not at everything since.
    const headItems = region(session.emulator, from, null, capture, echoRows).items;
    const head = withoutEcho(headItems, sent, enter);
    if (!head.pending) echoChars = head.echoed ? itemsText(headItems).length - head.text.length : 0;
  };
  // Typed while the program was not reading (busy, or still starting): it may echo the line again
  // when it reads it, after its prompt. That is not output either (see late-echo.ts).
  const typedAhead =
    session.integration !== "none" ? !editorReady : !looksLikePrompt(session.emulator.textBeforeCursor());
  const lateEcho = until && sent && enter && !startedInAlt && typedAhead ? new LateEchoFilter(lastLine(sent)) : null;
  let heldUntil: number | null = null;
  const matchUntil = (): string | null => {
    if (!until) return null;
    findEcho();
    if (echoChars !== null) {
      scanner ??= new OutputScanner(session.emulator, from, echoChars);
      let text = scanner.next();
      if (lateEcho) {
        const f = lateEcho.filter(text, Date.now() - session.lastOutputAt);
        heldUntil = f.held ? session.lastOutputAt + LATE_ECHO_HOLD_MS : null;
        text = f.text;
      }
      const m = until.exec(text);
      if (m) return m[0];
    }
    if (session.emulator.altScreen) {
      // Full-screen apps: match the screen, unless it already matched before this call.
      const m = until.exec(session.emulator.screenLines().join("\n"));
      if (m && !untilMatchedBefore) return m[0];
    }
    return null;
  };
  const produced = (): boolean => {
    findEcho();
    const after =
      echoChars === null ? "" : itemsText(region(session.emulator, from, null, capture).items).slice(echoChars);
    const visible = after.trim().length > 0;
    // A changed screen counts for keys and full-screen programs; after typed text outside one, it
    // may be nothing but the echo (a program still starting has not read the line yet).
    const redrawn =
      (sent === null || session.emulator.altScreen) && session.emulator.screenLines().join("\n") !== screenBefore;
    return visible || redrawn;
  };
  // Interrupting a command the shell marks: its end mark is what ends the wait, not a silence.
  const interrupting = session.integration !== "none" && session.phase === "running" && carriesInterrupt(bytes);
  const sentAt = Date.now();
  try {
    session.noteTyped(from, sent ?? "");
    session.write(bytes);
    if (sendBreak) await session.sendBreak();
    let verdict = await awaitCompletion(session, {
      since: seq0,
      fallback: until ? "none" : "prompt",
      typed: { at: from, text: sent ?? "", editorReady },
      until: until ? matchUntil : undefined,
      untilHeldMs: () => (heldUntil === null ? null : Math.max(1, heldUntil - Date.now())),
      produced,
      timeoutMs: p.wait_ms,
      signal,
    });
    // An interrupted command that fell silent has not necessarily ended: its shell says when it
    // has, and then the session is free for the next term_exec (issue 21: SESSION_BUSY after ctrl+c).
    // One that caught the interrupt and waits for the user (a pager, a prompt) will not end.
    if (interrupting && verdict.kind === "settle" && session.state() === "running") {
      const leftMs = p.wait_ms - (Date.now() - sentAt);
      verdict = await awaitCompletion(session, {
        since: seq0,
        fallback: "none",
        typed: null,
        timeoutMs: leftMs,
        signal,
      });
    }
    findEcho();
    // Output ends where the shell said the command ended, or before its continuation prompt.
    let end: Pos | null = null;
    if (verdict.kind === "end") end = verdict.end.pos;
    else if (verdict.kind === "continuation") end = rowStart(verdict.mark.pos);
    let items = dropChars(region(session.emulator, from, end, capture, Infinity, p.max_tokens).items, echoChars ?? 0);
    if (lateEcho?.echoed) items = withoutLateEcho(items, lastLine(sent ?? ""));
    // A command line the shell reports done: its output is the command's, as in term_exec.
    const own = verdict.kind === "end" ? splitJobNotices(items, session.family, p.text ?? "") : null;
    const result = finishSend(session, own ? own.items : items, verdict, clientId, p.max_tokens, end);
    if (own && own.notices.length > 0) result.job_notices = own.notices;
    return result;
  } finally {
    session.release(capture);
  }
}

function finishSend(
  session: Session,
  items: Item[],
  v: Verdict,
  clientId: string,
  maxTokens: number,
  end: Pos | null,
): SendResult {
  const em = session.emulator;
  const alt = em.altScreen;
  const rendered = render(items, maxTokens, (t) => session.redact(t), fetchableFrom(session.emulator));
  // The output stops at `end` (an end mark, a continuation prompt): what was parsed after it (a
  // typed-ahead line's own output) is the next read's, not skipped (issue 21 outside try: dash).
  session.setCursor(clientId, end ?? em.cursorPos());
  const screen = alt ? screenForClient(session, clientId, maxTokens) : null;
  const result: SendResult = {
    session: session.id,
    output: rendered.output,
    screen: screen?.text ?? null,
    screen_mode: screen?.mode ?? null,
    state: session.state(),
    matched: v.kind === "until" ? v.matched : null,
    via: viaOf(session, v),
    exit_code: exitCodeOf(session, v),
    alt_screen: alt,
    cursor: em.screenCursor(),
    truncated: rendered.truncated,
  };
  if (v.kind === "continuation") result.hint = CONTINUATION_HINT;
  return result;
}

/** The last line of typed text: what a line editor echoes after its prompt. */
export function lastLine(text: string): string {
  return text.split("\n").pop() ?? "";
}

/**
 * The output without the late echo of the typed line (the program's prompt and its own echo of
 * it). What came before it stays: it is output since the send too (a command still running when
 * the line was typed ahead, a REPL's banner), and the client's read position moves past it, so
 * left out here it would be lost for every later read (issue 21, an outside try: 4 in 8 bash runs).
 */
function withoutLateEcho(items: Item[], typedLine: string): Item[] {
  const k = items.findIndex((it) => !("gap" in it) && isLateEcho(it.text, typedLine));
  return k < 0 ? items : [...items.slice(0, k), ...items.slice(k + 1)];
}

/** Throws INVALID_ARGUMENT (before anything is sent) when the session's line has no break. */
function assertCanBreak(session: Session): void {
  if (session.backendHandle.sendBreak) return;
  throw new AppError(
    "INVALID_ARGUMENT",
    `session '${session.id}' is ${session.kind}: only serial lines have a break`,
    'Send ctrl+c to interrupt a program; use keys:["break"] on serial sessions.',
  );
}
