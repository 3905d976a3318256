/**
 * The one place a wait ends. term_exec, term_send, term_read (with `until`, or waiting for new
 * output) and term_open all wait through `awaitCompletion`, so they read the same signals in the
 * same order, with the same quiet times, and report the same `via`:
 *
 *   1. until         the caller's pattern appeared in new output (never the echo, never old output).
 *                    A pattern is what the caller waited for, so it wins even when the command
 *                    ended in the same chunk; the end's exit code is still reported.
 *   2. exit          the program (the session) ended.
 *   3. shell marks   a command ended (D mark: exit code, cwd) — via `shell`, or `marker` where
 *                    per-command markers stand in for hooks (POSIX sh); the shell waits for the
 *                    rest of an unfinished line (P mark: PS2, once quiet); it drew its prompt
 *                    again below the input without running anything (the line was dropped).
 *   4. tty           the kernel says the foreground program is blocked reading the terminal
 *                    (local sessions on Linux, tty-wait.ts): exact, and soon after it blocks.
 *   4. prompt/state  a running command waits for input (password, yes/no, pager, full-screen app);
 *                    a program without integration settled at something prompt-like.
 *   5. settle        output stopped changing: a guess, reported as such. Where the kernel can be
 *                    asked, nothing at all is never "settled": a program that prints nothing and
 *                    does not read the terminal is starting or working, so the wait goes on;
 *                    term_open answers `silent` (via timeout: its own short limit) for one that
 *                    does nothing, as term_exec answers `running` at its timeout.
 *   6. timeout       the caller's bound.
 * Which of 4–5 apply depends on the caller (`Fallback`); 1–3 and 6 apply to every wait.
 */
import type { z } from "zod";
import type { viaEnum } from "../api/fields.ts";
import type { Session } from "./session.ts";
import type { MarkRecord } from "./marks.ts";
import { waitFor, type CheckResult } from "./wait.ts";
import { looksLikePrompt } from "../terminal/classify.ts";
import type { Pos } from "../terminal/emulator.ts";
import type { TtyWait } from "../util/tty-wait.ts";
import { hasContent, itemsText, region } from "../terminal/output-region.ts";
import { bareShell, foregroundShell } from "./bare-shell.ts";
import { endAgreed } from "./end-agreement.ts";

/** A prompt-like last line (or a continuation prompt) must stay unchanged this long to be believed. */
export const PROMPT_QUIET_MS = 60;
/** A running command quiet this long is asked whether it waits at a password/yes-no prompt or pager. */
export const INPUT_QUIET_MS = 120;
/** A full-screen program (alt screen) quiet this long is waiting for keys. */
export const SCREEN_INPUT_QUIET_MS = 400;
/** Without a better signal, output that stopped changing for this long is "settled". */
export const SETTLE_QUIET_MS = 300;
/** When nothing at all appears after the input, give up waiting after this long… */
export const NOTHING_SETTLE_MS = 600;
/**
 * …unless the program is busy (on a CPU or on disk: starting up, as python importing its modules
 * or a JVM), then up to this long, looking again every BUSY_RECHECK_MS. A python3 REPL's banner
 * took more than 600 ms in a full test run at load 5 on 2 cores; a silent computation is given up
 * on after this, as it would not print soon either.
 */
export const NOTHING_BUSY_MAX_MS = 5000;
const BUSY_RECHECK_MS = 100;
/**
 * A program blocked reading the terminal with no time limit (cat, `read x`, a line editor) is
 * believed once output was quiet this long: what it wrote before blocking may still be on its way
 * through the kernel's buffers to the master (the probe also checks what waits there). It is most
 * of the latency of `term_exec "cat"` (bench metric 9)…
 */
export const TTY_QUIET_MS = 15;
/**
 * …one that waits for the terminal with a time limit only once quiet this long: a redraw timer
 * (top, htop) waits for keys, but so does vim for ≤100 ms for the terminal's answer to a query
 * as it exits, which is not waiting for the user.
 */
export const TTY_TIMED_QUIET_MS = 200;
/** See ttyCheck: the kernel's "waits for the terminal" is asked twice, this far apart. */
const TTY_CONFIRM_MS = 10;
/**
 * While nothing says the wait is over, the kernel is asked again after this long at first, then
 * after an eighth of the time waited so far, at most TTY_RECHECK_MAX_MS: a program that blocks
 * right away is seen within ~TTY_QUIET_MS, and a long build costs a /proc scan (~2 ms) per 0.5 s.
 */
const TTY_RECHECK_MIN_MS = 20;
const TTY_RECHECK_MAX_MS = 500;
/**
 * After typed text of which nothing at all came back, not even the echo, the kernel's "waits for
 * the terminal" is believed only this long after the write: until then the program may not have
 * been handed the input (see promptCheck). A program that reads without echo and prints nothing
 * (a password typed without Enter) is answered this much later.
 */
const UNECHOED_TTY_MS = 1000;
/** A program seen idle after its output is looked at again this much later before it counts as settled. */
const IDLE_CONFIRM_MS = 100;

/**
 * term_open of a program that has printed nothing: once silent this long, and seen idle (neither
 * waiting for the terminal nor on a CPU or disk) twice IDLE_CONFIRM_MS apart, it is answered as
 * running, as Codex's exec answers after its yield_time_ms. `sleep 20; echo late` held term_open
 * for its 15 s limit (issue 36 item 7). A program that starts slowly works meanwhile (python3
 * importing: on a CPU or on disk, also on a loaded machine, where it waits runnable), so it is
 * still waited for. With the confirmation and a recheck's lateness it answers within about 1 s.
 */
export const OPEN_SILENT_YIELD_MS = 700;

/** Once new output starts arriving, a read lets it finish its burst for this long… */
export const READ_COALESCE_MS = 40;
/** …but under a continuous flood returns what is there after this long. */
export const READ_MAX_COALESCE_MS = 250;

/** What a result at a continuation prompt tells the caller to do next. */
export const CONTINUATION_HINT =
  "The shell waits for the rest of an unfinished command line (open quote, `if … then`, here-document): " +
  'send the rest with term_send text, or cancel the line with term_send keys:["ctrl+c"].';

/** How a wait ended (SPEC: `via`); the one definition is the tools' enum. */
export type Via = z.output<typeof viaEnum>;

export type Verdict =
  | { kind: "until"; matched: string; end: MarkRecord | null }
  | { kind: "exit" }
  | { kind: "end"; end: MarkRecord; start: MarkRecord | null }
  | { kind: "continuation"; mark: MarkRecord }
  /** The prompt was drawn again with no command started or ended (line refused, or a redraw). */
  | { kind: "redrawn"; mark: MarkRecord }
  /** A running command waits for the user: password, yes/no, pager, full-screen program. */
  | { kind: "input" }
  /** The kernel says the foreground program is blocked reading the terminal. */
  | { kind: "tty" }
  /**
   * term_open: the program printed nothing for `silentMs` and the kernel says it neither waits for
   * the terminal nor works: it runs on (OPEN_SILENT_YIELD_MS).
   */
  | { kind: "silent"; silentMs: number }
  /** The shell is ready at its first prompt (term_open). */
  | { kind: "ready" }
  | { kind: "prompt" }
  | { kind: "settle" }
  | { kind: "timeout" };

/**
 * What may end a wait when no mark has spoken (steps 4–5):
 *   input     term_exec: a command that started and now waits for the user
 *   prompt    term_send without `until`: a prompt-like pause, else settle
 *   coalesce  term_read `new`: the burst of new output is over
 *   open      term_open: the shell's first prompt; programs: a prompt-like pause or settle
 *   none      waits for `until`: only the pattern, marks, exit or the timeout
 */
export type Fallback = "input" | "prompt" | "coalesce" | "open" | "none";

export interface WaitSpec {
  /** Marks after this sequence number belong to this wait. */
  since: number;
  fallback: Fallback;
  /** The caller's pattern over new output: the matched text, or null (not yet). */
  until?: () => string | null;
  /** The pattern held back a possible match (a prompt whose late echo may follow): look again in ms. */
  untilHeldMs?: () => number | null;
  /**
   * term_send: whether the input produced anything visible besides its own echo. term_read `new`:
   * whether the unread output is more than the echo of typed input (the echo alone is not new
   * output to settle on).
   */
  produced?: () => boolean;
  /** term_read: whether there was unread output when the call came (it may return at once). */
  hadUnread?: boolean;
  /**
   * What the caller typed and where (null for a read). A prompt drawn again below it, after its
   * echo, with nothing run, answers that input (a dropped line, a completion listing); a redraw
   * on the same row (a resize) or before the echo (a job notification in flight) does not.
   * `editorReady`: the line editor read input when the text was typed (B mark). When it did not
   * (typed while the prompt was still being drawn), the first prompt drawn after the echo is that
   * pending prompt, which then reads the typed line: not a redraw.
   */
  typed: { at: Pos; text: string; editorReady?: boolean } | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Waits for the first signal (see the module comment); never rejects except on cancellation. */
export async function awaitCompletion(session: Session, spec: WaitSpec): Promise<Verdict> {
  const startedAt = Date.now();
  const bytesAtStart = session.emulator.bytesIn;
  const state: WaitState = { firstNewAt: null, idleAt: null, silentIdleAt: null };
  const check = () => evaluate(session, spec, startedAt, bytesAtStart, state);
  const r = await waitFor<Verdict>(session, check, { timeoutMs: spec.timeoutMs, signal: spec.signal });
  if (r !== "timeout") return r;
  // The deadline fell between the shell's end mark and the kernel's agreement: the answer would
  // say `running` with the prompt already in the output. The agreement comes within ms (tens
  // under load); a forged end, never agreed, still times out, this much later.
  const pendingEnd = spec.fallback !== "open" && session.marksAfter(spec.since).some((m) => m.kind === "end");
  if (!pendingEnd || session.exit) return { kind: "timeout" };
  const late = await waitFor<Verdict>(session, check, { timeoutMs: END_AGREEMENT_GRACE_MS, signal: spec.signal });
  return late === "timeout" ? { kind: "timeout" } : late;
}

/**
 * How long past its deadline a wait holds for the kernel to agree with an end mark that came
 * before it (end-agreement.ts): the fish oracle, beside CPU hogs, once saw a 314 ms wait time out
 * with the end and the prompt printed but not yet agreed with.
 */
export const END_AGREEMENT_GRACE_MS = 300;

/**
 * After an `until` match in a shell's running command, how long to wait for that command's end
 * mark. The line a model waits for is often the command's last (`make; echo DONE`): the shell's
 * end mark follows within milliseconds (tens under load), and an answer without it told the
 * model the command ran on (`state running`), or waited for input (`reading`: the shell's own
 * line editor, before its prompt was parsed), until a second read (issue 36 item 1). A command
 * that runs on after the line costs the read this much more, at most.
 */
export const UNTIL_END_GRACE_MS = 300;

/**
 * An `until` verdict, with the end of the command it matched in when that end comes within
 * UNTIL_END_GRACE_MS (or the session's exit). A program that, after the match, waits for the
 * terminal (a REPL the command started, `read`) will not end by itself: no wait for it then.
 */
export async function withNearEnd(session: Session, v: Verdict, since: number, signal?: AbortSignal): Promise<Verdict> {
  if (v.kind !== "until" || v.end || session.exit || session.integration === "none" || session.phase !== "running")
    return v;
  const check = (): Check => {
    if (session.exit) return { done: { kind: "exit" } };
    const marked = markCheck(session, session.marksAfter(since), null);
    if (marked && "done" in marked) return marked;
    if (programWaitsForKeys(session)) return { done: { kind: "tty" } };
    return marked ?? (session.canAskTtyWait() ? { retryInMs: TTY_RECHECK_MIN_MS } : null);
  };
  const r = await waitFor<Verdict>(session, check, { timeoutMs: UNTIL_END_GRACE_MS, signal });
  return r !== "timeout" && r.kind === "end" ? { ...v, end: r.end } : v;
}

/** A program other than the session's shell leads the terminal and waits for keys (kernel's word). */
function programWaitsForKeys(session: Session): boolean {
  if (!session.canAskTtyWait()) return false;
  const group = session.backendHandle.foregroundGroup?.() ?? null;
  if (group === null || group === session.pid) return false;
  return (session.backendHandle.foregroundTtyWait?.() ?? null) !== null;
}

/** The `via` a verdict is reported as. */
export function viaOf(session: Session, v: Verdict): Via {
  switch (v.kind) {
    case "until":
    case "exit":
    case "tty":
    case "prompt":
    case "settle":
    case "timeout":
      return v.kind;
    case "silent":
      // Not a guess at a state (the kernel says it runs): the wait stopped at its own limit.
      return "timeout";
    case "end":
    case "ready":
      return session.integration === "marker" ? "marker" : "shell";
    case "continuation":
    case "redrawn":
    case "input":
      return "prompt";
  }
}

/** The exit code a verdict carries: the command's (end mark) or the session's (exit). */
export function exitCodeOf(session: Session, v: Verdict): number | null {
  if (session.exit) return session.exit.exitCode;
  if (v.kind === "end") return v.end.exitCode;
  if (v.kind === "until" && v.end) return v.end.exitCode;
  return null;
}

type Check = CheckResult<Verdict>;

/** What one wait remembers between its checks. */
interface WaitState {
  /** When new output first arrived (term_read coalescing). */
  firstNewAt: number | null;
  /** When the program was first seen idle since its last output (term_open). */
  idleAt: number | null;
  /** When a program that printed nothing was first seen idle, not waiting for the terminal (term_open). */
  silentIdleAt: number | null;
}

function evaluate(session: Session, spec: WaitSpec, startedAt: number, bytesAtStart: number, state: WaitState): Check {
  const marks = spec.fallback === "open" ? [] : session.marksAfter(spec.since);
  const end = marks.find((m) => m.kind === "end") ?? null;
  // 1. The pattern.
  const matched = spec.until?.() ?? null;
  if (matched !== null) return { done: { kind: "until", matched, end } };
  // 2. Exit.
  if (session.exit) return { done: { kind: "exit" } };
  // 3. Shell marks.
  if (spec.fallback === "open") return openCheck(session, startedAt, state);
  const marked = markCheck(session, marks, spec.typed);
  if (marked && "done" in marked) return marked;
  // An end mark the kernel has not agreed with yet asks to be looked at again, and nothing weaker
  // ends the wait meanwhile: the shell's own end is normally agreed with within a few ms, and
  // after a forged one the session's phase says "prompt" while the command runs on, which the
  // fallbacks would take for a prompt (a read settling, `input` at a prompt-like pause).
  if (marks.some((m) => m.kind === "end")) return marked;
  // 4–5. Per caller.
  return sooner(marked, fallbackCheck(session, spec, marks, startedAt, bytesAtStart, state));
}

function fallbackCheck(
  session: Session,
  spec: WaitSpec,
  marks: MarkRecord[],
  startedAt: number,
  bytesAtStart: number,
  state: WaitState,
): Check {
  switch (spec.fallback) {
    case "open":
      return null;
    case "none": {
      const held = spec.untilHeldMs?.() ?? null;
      return held === null ? null : { retryInMs: held };
    }
    case "input":
      return marks.some((m) => m.kind === "start") ? inputCheck(session, startedAt) : null;
    case "prompt":
      return promptCheck(session, spec, startedAt, bytesAtStart);
    case "coalesce":
      return coalesceCheck(session, spec, bytesAtStart, state);
  }
}

/** The earlier of two checks: a verdict, else the sooner look again, else nothing. */
function sooner(a: Check, b: Check): Check {
  if (a === null || (b !== null && "done" in b)) return b;
  if (b === null || "done" in a) return a;
  return { retryInMs: Math.min(a.retryInMs, b.retryInMs) };
}

/**
 * The shell's marks. An end counts, where the kernel can be asked, only once it agrees that the
 * shell is back at its prompt (end-agreement.ts); then the last end mark is the shell's own, and
 * any before it since the start were printed by the command.
 */
function markCheck(session: Session, marks: MarkRecord[], typed: WaitSpec["typed"]): Check {
  const ends = marks.filter((m) => m.kind === "end");
  if (ends.length > 0) {
    const agreed = endAgreed(session, ends[ends.length - 1]!.at);
    if (agreed !== true) return agreed;
    const end = session.endsNeedAgreement ? ends[ends.length - 1]! : ends[0]!;
    session.confirmEnd(end.seq);
    const start = marks.find((m) => m.kind === "start" && m.seq < end.seq) ?? null;
    return { done: { kind: "end", end, start } };
  }
  const last = marks[marks.length - 1];
  if (last?.kind === "continuation" && session.phase === "continuation") {
    const quietFor = Date.now() - session.lastOutputAt;
    // A paste's next line follows its PS2 at once: only a PS2 that stays is a question.
    return quietFor >= PROMPT_QUIET_MS
      ? { done: { kind: "continuation", mark: last } }
      : { retryInMs: PROMPT_QUIET_MS - quietFor };
  }
  const started = marks.some((m) => m.kind === "start" || m.kind === "continuation");
  if (typed === null || started) return null;
  // Typed ahead of the prompt: the first B after it is that prompt being drawn (issue 21: a
  // false `done` right after term_open over SSH), so only a later one can be a redraw.
  const drawn = marks.filter((m) => m.kind === "ready").slice(typed.editorReady === false ? 1 : 0);
  const redraw = drawn.find((m) => m.pos.row > typed.at.row && echoedBefore(session, typed, m.pos));
  if (redraw) return { done: { kind: "redrawn", mark: redraw } };
  return null;
}

/** Whether the last line of the typed text was echoed between where it was typed and `pos`. */
function echoedBefore(session: Session, typed: NonNullable<WaitSpec["typed"]>, pos: Pos): boolean {
  const lastLine = typed.text.split("\n").pop()!.trim();
  if (lastLine.length === 0) return true; // keys only: no echo to wait for
  // Soft-wrapped rows come back as separate lines: compare without line breaks.
  return itemsText(region(session.emulator, typed.at, pos).items)
    .replace(/\n/g, "")
    .includes(lastLine);
}

/** While a command runs: is it now waiting for the user (password, yes/no, pager, full-screen app)? */
function inputCheck(session: Session, startedAt: number): Check {
  // Classify only once output paused: it is cheap to wait, and classifying every chunk of a flood is not.
  const quietFor = Date.now() - session.lastOutputAt;
  if (quietFor < TTY_QUIET_MS) return { retryInMs: TTY_QUIET_MS - quietFor };
  // The kernel's word comes first: it is exact, and it comes before any quiet time is up. Asked
  // once: the state below must not see a program that blocked after this answer (see state()).
  const wait = session.backendHandle.foregroundTtyWait?.() ?? null;
  const tty = ttyCheck(session, wait);
  if (tty && !("done" in tty)) return tty;
  if (tty) {
    // A shell the command started, once its line editor is on, is given our hooks (`input`); one
    // whose line editor (raw mode) is still starting up is left to the checks below. A shell
    // reading a line in canonical mode runs its `read` builtin: that waits for input like cat.
    if (!foregroundShell(session)) return tty;
    if (bareShell(session)) return { done: { kind: "input" } };
    if (session.backendHandle.ttyModes()?.canonical) return tty;
  }
  if (quietFor < INPUT_QUIET_MS) {
    // A program still starting (exec, loading) blocks soon: ask the kernel again before then.
    const left = INPUT_QUIET_MS - quietFor;
    return { retryInMs: session.canAskTtyWait() ? Math.min(left, TTY_RECHECK_MIN_MS) : left };
  }
  const state = session.state(wait);
  if (state === "password" || state === "confirm" || state === "pager") return { done: { kind: "input" } };
  if (session.emulator.altScreen) {
    return quietFor >= SCREEN_INPUT_QUIET_MS
      ? { done: { kind: "input" } }
      : { retryInMs: SCREEN_INPUT_QUIET_MS - quietFor };
  }
  // A shell the command started (`exec bash`, a nested shell) reads keys at its own prompt: the
  // process and the tty say so (bare-shell.ts), so it needs no settle.
  const shell = foregroundShell(session);
  if (shell && bareShell(session)) return { done: { kind: "input" } };
  // A prompt of something else without our integration (a REPL started by the command, ssh to a
  // remote shell): it waits for input. Only text, so it must hold as long as a settle to count,
  // and where the kernel can say, something must listen to the terminal: output that merely ends
  // in `>` before a sleep is no prompt (issue 21: the completion oracle, fish).
  if (state === "prompt") {
    if (quietFor < SETTLE_QUIET_MS) return { retryInMs: SETTLE_QUIET_MS - quietFor };
    if (session.backendHandle.foregroundWatchesTty?.() === false) {
      return { retryInMs: ttyRecheckMs(Date.now() - startedAt, quietFor) };
    }
    return { done: { kind: "input" } };
  }
  // A shell may turn its line editor on without printing anything more (its prompt came first):
  // no output would wake this check again, so look again after a while.
  if (shell) return { retryInMs: SETTLE_QUIET_MS };
  // Nor does a program that starts reading the terminal after a silent while: ask the kernel again.
  return session.canAskTtyWait() ? { retryInMs: ttyRecheckMs(Date.now() - startedAt, quietFor) } : null;
}

/**
 * When the kernel first said a session's program waits for the terminal, and the session's last
 * output and input then: the same answer TTY_CONFIRM_MS later, with nothing written or printed
 * in between, is believed. Output written just before blocking can still be in the kernel's
 * buffers on its way to the master when the first answer comes (a shell's first prompt).
 */
const ttySeen = new WeakMap<Session, { at: number; outputAt: number; activityAt: number }>();

/**
 * The kernel says the foreground program waits for keys (tty-wait.ts), and output was quiet long
 * enough to believe it: `tty`, or ask again shortly to confirm it; null when it does not wait.
 */
function ttyCheck(session: Session, asked?: TtyWait): Check {
  const now = Date.now();
  const quietFor = now - session.lastOutputAt;
  if (quietFor < TTY_QUIET_MS) return null;
  const wait = asked !== undefined ? asked : (session.backendHandle.foregroundTtyWait?.() ?? null);
  if (wait === null || (wait === "timed" && (quietFor < TTY_TIMED_QUIET_MS || answerDue(session)))) {
    ttySeen.delete(session);
    return null;
  }
  const seen = ttySeen.get(session);
  if (seen && seen.outputAt === session.lastOutputAt && seen.activityAt === session.lastActivityAt) {
    if (now - seen.at >= TTY_CONFIRM_MS) return { done: { kind: "tty" } };
    return { retryInMs: TTY_CONFIRM_MS - (now - seen.at) };
  }
  ttySeen.set(session, { at: now, outputAt: session.lastOutputAt, activityAt: session.lastActivityAt });
  return { retryInMs: TTY_CONFIRM_MS };
}

/**
 * A wait with a time limit on a line below a typed one, no prompt drawn: an event loop with a
 * timer due (node's REPL at `await` of a promise: epoll_wait over the tty with a timeout) still
 * owes its answer and its prompt; it is not waiting for keys. A redraw timer (top, htop, vim)
 * waits on the alternate screen, or with its cursor after text. Answered `reading` after 200 ms,
 * the answer came with the next input (issue 36 item 3: the REPL oracle).
 */
function answerDue(session: Session): boolean {
  const em = session.emulator;
  return !em.altScreen && em.cursorPos().col === 0 && em.textBeforeCursor().trim() === "";
}

/** When to ask the kernel again: soon at first, rarely in a long wait; in time for a timed wait's quiet. */
function ttyRecheckMs(waited: number, quietFor: number): number {
  const backoff = Math.min(TTY_RECHECK_MAX_MS, Math.max(TTY_RECHECK_MIN_MS, Math.round(waited / 8)));
  const timedDue = TTY_TIMED_QUIET_MS - quietFor;
  return timedDue > 0 ? Math.min(backoff, Math.max(TTY_RECHECK_MIN_MS, timedDue)) : backoff;
}

function promptCheck(session: Session, spec: WaitSpec, startedAt: number, bytesAtStart: number): Check {
  // The rest needs a pause in the output; classifying every chunk of a flood would be waste.
  const now = Date.now();
  const quietFor = now - session.lastOutputAt;
  const nothing = (): Check => nothingYet(session, now - startedAt);
  if (session.emulator.bytesIn === bytesAtStart) {
    // Typed text with not even its echo back: the kernel may not have handed it to the program
    // yet (a pty's input passes a kernel worker before the program can read it; on a busy machine
    // that took longer than the tty check, and redis-cli's answer came with the next input).
    const typed = (spec.typed?.text.length ?? 0) > 0;
    if (typed && now - startedAt < UNECHOED_TTY_MS) return { retryInMs: TTY_RECHECK_MIN_MS };
    return nothing();
  }
  if (quietFor < PROMPT_QUIET_MS) return { retryInMs: PROMPT_QUIET_MS - quietFor };
  if (spec.produced && !spec.produced()) return nothing();
  const state = session.state();
  if (state !== "running" && state !== "reading" && !session.emulator.altScreen) return { done: { kind: "prompt" } };
  // No text says why, or a full-screen program: the kernel tells when it waits for keys.
  const tty = ttyCheck(session);
  if (tty) return tty;
  if (quietFor < SETTLE_QUIET_MS) return { retryInMs: SETTLE_QUIET_MS - quietFor };
  return { done: { kind: "settle" } };
}

/**
 * Nothing appeared after `waited` ms. Where the kernel can be asked, the wait ends only when the
 * program waits for the terminal (its prompt may simply be empty, as `python3 -q` behind a slow
 * start, or `cat`); a program that sleeps elsewhere or works is starting, so the caller's limit
 * decides. Elsewhere the answer is "settled", unless the program is still busy.
 */
function nothingYet(session: Session, waited: number): Check {
  if (session.canAskTtyWait()) {
    const tty = waited >= TTY_QUIET_MS ? ttyCheck(session) : null;
    if (tty) return tty;
    return { retryInMs: ttyRecheckMs(waited, Date.now() - session.lastOutputAt) };
  }
  if (waited < NOTHING_SETTLE_MS) return { retryInMs: NOTHING_SETTLE_MS - waited };
  if (waited < NOTHING_BUSY_MAX_MS && session.backendHandle.foregroundBusy?.()) return { retryInMs: BUSY_RECHECK_MS };
  return { done: { kind: "settle" } };
}

function coalesceCheck(session: Session, spec: WaitSpec, bytesAtStart: number, state: WaitState): Check {
  if (!spec.hadUnread && session.emulator.bytesIn === bytesAtStart) return null;
  // An echo of typed input alone: the output it announces is still to come (issue 21 item 4).
  if (spec.produced && !spec.produced()) return null;
  const now = Date.now();
  state.firstNewAt ??= now;
  const quietFor = now - session.lastOutputAt;
  const sinceFirst = now - state.firstNewAt;
  if (quietFor >= READ_COALESCE_MS || sinceFirst >= READ_MAX_COALESCE_MS) return { done: { kind: "settle" } };
  return { retryInMs: Math.min(READ_COALESCE_MS - quietFor, READ_MAX_COALESCE_MS - sinceFirst) };
}

/** term_open: shells are ready at their first prompt; programs at a prompt-like pause or settle. */
function openCheck(session: Session, startedAt: number, state: WaitState): Check {
  if (session.integration !== "none") return session.phase !== "starting" ? { done: { kind: "ready" } } : null;
  // A remote command behind a slow login and boot script: its silence starts when it does.
  if (session.awaitingProgramStart) return null;
  const quietFor = Date.now() - session.lastOutputAt;
  const program = session.programStart;
  if (program && !hasContent(region(session.emulator, program.pos, null).items)) {
    return silentCheck(session, Date.now() - program.at, state);
  }
  if (session.emulator.bytesIn === 0) return silentCheck(session, Date.now() - startedAt, state);
  state.silentIdleAt = null;
  if (looksLikePrompt(session.emulator.textBeforeCursor())) {
    return quietFor >= PROMPT_QUIET_MS ? { done: { kind: "prompt" } } : { retryInMs: PROMPT_QUIET_MS - quietFor };
  }
  // It printed something without a prompt sign and now reads the terminal: ready, and exactly so.
  const tty = ttyCheck(session);
  if (tty) return tty;
  if (quietFor < SETTLE_QUIET_MS) {
    const left = SETTLE_QUIET_MS - quietFor;
    return { retryInMs: session.canAskTtyWait() ? Math.min(left, TTY_RECHECK_MIN_MS) : left };
  }
  // Quiet, but still working (python importing readline between its banner and its first prompt,
  // slow on a loaded machine): not settled yet, up to the same bound as before any output.
  const now = Date.now();
  const busy = now - startedAt < NOTHING_BUSY_MAX_MS ? session.backendHandle.foregroundBusy?.() : false;
  if (busy === undefined) return { done: { kind: "settle" } }; // no process to look at (SSH, serial)
  if (busy || (state.idleAt !== null && state.idleAt < session.lastOutputAt)) {
    state.idleAt = null;
    return { retryInMs: BUSY_RECHECK_MS };
  }
  // Idle now: look once more a moment later, so what it printed just before going idle (read
  // from the PTY, not parsed yet, on a loaded machine) lands first; it may be the prompt.
  state.idleAt ??= now;
  const idleFor = now - state.idleAt;
  return idleFor >= IDLE_CONFIRM_MS ? { done: { kind: "settle" } } : { retryInMs: IDLE_CONFIRM_MS - idleFor };
}

/**
 * term_open, nothing printed for `waited` ms: as nothingYet, and where the kernel can be asked, a
 * program silent for OPEN_SILENT_YIELD_MS that neither waits for the terminal nor works, seen so
 * twice IDLE_CONFIRM_MS apart, is answered as `silent` (running on).
 */
function silentCheck(session: Session, waited: number, state: WaitState): Check {
  const nothing = nothingYet(session, waited);
  if (!session.canAskTtyWait() || (nothing !== null && "done" in nothing)) return nothing;
  const now = Date.now();
  // Asked in this order: a program that blocks on the terminal between the two answers is not idle.
  const idle = session.backendHandle.foregroundBusy?.() === false && !session.backendHandle.foregroundTtyWait?.();
  if (waited < OPEN_SILENT_YIELD_MS || !idle) {
    state.silentIdleAt = null;
    const lookAgain = waited < OPEN_SILENT_YIELD_MS ? OPEN_SILENT_YIELD_MS - waited : BUSY_RECHECK_MS;
    return sooner(nothing, { retryInMs: lookAgain });
  }
  state.silentIdleAt ??= now;
  const idleFor = now - state.silentIdleAt;
  if (idleFor >= IDLE_CONFIRM_MS) return { done: { kind: "silent", silentMs: waited } };
  return { retryInMs: IDLE_CONFIRM_MS - idleFor };
}
