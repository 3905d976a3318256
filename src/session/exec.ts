/**
 * term_exec: type one command line at a shell prompt and wait until the shell says it finished.
 * Completion comes from shell integration (via "shell") or per-command markers (via "marker"),
 * never from silence. Output is exactly what the command printed: after its start mark, before
 * its end mark, so neither the echo of the typed line nor the next prompt is included.
 */
import type { z } from "zod";
import type { execOutput } from "../api/methods/exec.ts";
import { AppError } from "../api/errors.ts";
import { commandLine } from "../terminal/shell-integration.ts";
import { splitJobNotices } from "../terminal/job-notices.ts";
import { render } from "../terminal/render.ts";
import type { Pos } from "../terminal/emulator.ts";
import type { HeadCapture } from "../terminal/history.ts";
import type { Item } from "../terminal/render.ts";
import type { Session } from "./session.ts";
import type { MarkRecord } from "./marks.ts";
import { fetchableFrom, region, rowStart } from "../terminal/output-region.ts";
import { withoutEcho } from "./echo-items.ts";
import { awaitInterruptedEnd, ensureReady } from "./ready.ts";
import { waitFor } from "./wait.ts";
import { adoptPromptShell, followShell, installHooks } from "./reintegrate.ts";
import { bareShell } from "./bare-shell.ts";
import { awaitCompletion, CONTINUATION_HINT, exitCodeOf, viaOf, type Verdict } from "./completion.ts";
import { reduceItems } from "../reduce/items.ts";
import { screenForClient } from "./screen-view.ts";

/** After a shell dropped a line, how long to wait for its prompt to be drawn again after ctrl+c. */
const DROPPED_REDRAW_MS = 1000;

export interface ExecParams {
  command: string;
  timeout_ms: number;
  max_tokens: number;
  /**
   * Rewrite known noisy output (src/reduce) before the budget applies: true always, false never;
   * left out, only output the budget would otherwise cut (reduced instead of cut, and said so).
   */
  reduce?: boolean;
}

/** term_exec's result: the one definition is its schema (src/api/methods/exec.ts). */
export type ExecResult = z.output<typeof execOutput>;

export function assertCanExec(session: Session): void {
  session.assertAlive();
  if (session.integration === "none") {
    throw new AppError(
      "INVALID_ARGUMENT",
      `session '${session.id}' runs ${session.target}, not a shell, so term_exec cannot know when a command ends`,
      "Drive programs and REPLs with term_send (use `until` to wait for their prompt), or term_exec in a shell " +
        "session.",
    );
  }
}

export async function execCommand(
  session: Session,
  p: ExecParams,
  clientId: string,
  signal?: AbortSignal,
): Promise<ExecResult> {
  const t0 = performance.now();
  assertCanExec(session);
  await awaitUnstartedLine(session, p.timeout_ms, signal);
  await awaitInterruptedEnd(session, p.timeout_ms, signal);
  await followShell(session, p.timeout_ms, signal);
  const release = session.claimExec(clientId);
  try {
    await ensureReady(session, p.timeout_ms, signal);
    session.assertAlive(); // it may have exited while we waited for its prompt
    adoptPromptShell(session);
    const seq0 = session.lastMarkSeq;
    const typedAt = session.emulator.cursorPos();
    const typedCapture = session.captureFrom(typedAt);
    const line = commandLine(p.command, session.family ?? "sh", session.integration);
    const editorReady = session.inputReady;
    try {
      session.noteTyped(typedAt, line);
      session.write(line + "\r");
      const remaining = Math.max(0, p.timeout_ms - (performance.now() - t0));
      const verdict = await awaitCompletion(session, {
        since: seq0,
        fallback: "input",
        typed: { at: typedAt, text: line, editorReady },
        timeoutMs: remaining,
        signal,
      });
      // Answered before the shell said anything of the line (not even its start, under load or
      // behind a slow preexec hook): the next call must not type another line at this prompt.
      if (verdict.kind === "timeout" && session.lastMarkSeq === seq0) unstartedLines.set(session, seq0);
      // The command started a shell of its own (`exec bash`, `bash`): it gets our hooks, and its
      // prompt, where they were typed, is not the command's output.
      const shell = verdict.kind === "input" ? bareShell(session) : null;
      const leftMs = Math.max(0, p.timeout_ms - (performance.now() - t0));
      const installed = shell ? await installHooks(session, shell, leftMs, signal) : null;
      // A reducer reads the whole output; the budget then cuts what it left (reduce first).
      const budget = p.reduce ? undefined : p.max_tokens;
      const itemsWithin = (b: number | undefined) =>
        commandItems(session, verdict, seq0, typedAt, typedCapture, line, b, installed?.at ?? null);
      const items =
        verdict.kind === "redrawn"
          ? await cancelDroppedLine(session, verdict.mark, typedAt, line, signal)
          : itemsWithin(budget);
      let own = splitJobNotices(items, session.family, p.command);
      let reduction = p.reduce ? reduceItems(p.command, own.items) : null;
      const renderItems = (its: Item[]) =>
        render(its, p.max_tokens, (t) => session.redact(t), fetchableFrom(session.emulator));
      let rendered = renderItems(reduction ? reduction.items : own.items);
      // Output the budget cuts, of a command a reducer knows: reduced instead of cut, unless the
      // call said `reduce: false`. The reducer reads the whole output; every line stays in history.
      if (p.reduce === undefined && rendered.truncated && verdict.kind !== "redrawn") {
        const whole = splitJobNotices(itemsWithin(undefined), session.family, p.command);
        const instead = reduceItems(p.command, whole.items);
        if (instead.reduced) {
          own = whole;
          reduction = { ...instead, note: `${instead.note}, instead of cutting` };
          rendered = renderItems(instead.items);
        }
      }
      session.setCursor(clientId, session.emulator.cursorPos());
      const result: ExecResult = {
        session: session.id,
        status: statusOf(verdict),
        exit_code: exitCodeOf(session, verdict),
        output: rendered.output,
        cwd: session.cwd,
        duration_ms: Math.round(performance.now() - t0),
        via: execVia(session, verdict),
        truncated: rendered.truncated,
        state: session.state(),
      };
      if (verdict.kind === "continuation") result.hint = CONTINUATION_HINT;
      if (verdict.kind === "timeout") result.hint = stillRunningHint(session.id);
      if (shell && installed) result.hint = shellStartedHint(shell, installed.ok);
      if (own.notices.length > 0) result.job_notices = own.notices;
      if (reduction) result.reduced = reduction.note;
      // Waiting in a full-screen program, the output is empty: the screen is what there is to read.
      if (result.status === "input" && session.emulator.altScreen) {
        const screen = screenForClient(session, clientId, p.max_tokens);
        result.screen = screen.text;
        result.screen_mode = screen.mode;
      }
      return result;
    } finally {
      session.release(typedCapture);
    }
  } finally {
    release();
  }
}

/**
 * Where the command keeps running and how to follow it: the session stays busy for term_exec, and
 * term_read is what reports the rest of its output and, once it ends, its exit code.
 */
function stillRunningHint(session: string): string {
  return (
    `It keeps running in session ${session}: term_read session:${JSON.stringify(session)} waits (wait_ms, up to ` +
    `600000) for its next output and gives its exit code once it ends; term_send keys:["ctrl+c"] stops it.`
  );
}

/**
 * Per session, the last mark's number when a term_exec answered `running` before any mark of the
 * line it typed: the prompt still looks ready, but the shell has that line to run.
 */
const unstartedLines = new WeakMap<Session, number>();

/**
 * A line typed by an earlier term_exec that has not started yet: wait for the shell's next mark
 * (its start, then claimExec says SESSION_BUSY while it runs), or the timeout. A line typed now
 * would run after it, and the earlier line's start and end would be taken for its own.
 */
async function awaitUnstartedLine(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const seq = unstartedLines.get(session);
  if (seq === undefined) return;
  // Waited for once: a line the shell never starts (it went to something else) costs one wait.
  unstartedLines.delete(session);
  if (session.lastMarkSeq !== seq || session.exit) return;
  const started = () => (session.lastMarkSeq !== seq || session.exit ? { done: true } : null);
  await waitFor(session, started, { timeoutMs, signal });
}

function shellStartedHint(family: string, integrated: boolean): string {
  if (!integrated) {
    return (
      `The command left ${family} waiting at its prompt, and it did not take ptyhub's shell integration ` +
      "(another user's shell?): drive it with term_send; `exit` leaves it."
    );
  }
  return (
    `The command left ${family} waiting at its prompt, now with ptyhub's shell integration: term_exec runs ` +
    "commands in it; `exit` leaves it (after `exec`, that ends the session)."
  );
}

function statusOf(v: Verdict): ExecResult["status"] {
  if (v.kind === "timeout") return "running";
  if (v.kind === "input" || v.kind === "tty" || v.kind === "continuation") return "input";
  return "done";
}

function execVia(session: Session, v: Verdict): ExecResult["via"] {
  const via = viaOf(session, v);
  // term_exec waits for none of these; the verdicts it can get map onto its own `via` values.
  return via === "until" || via === "settle" ? "prompt" : via;
}

/** The command's own output: after its start mark (or the typed line), before its end or a PS2. */
function commandItems(
  session: Session,
  v: Verdict,
  seq0: number,
  typedAt: Pos,
  typedCapture: HeadCapture,
  line: string,
  /** The call's token budget, or undefined for the whole output (a reducer reads it all). */
  budget: number | undefined,
  /** Where hooks were typed into a shell the command started: its output ends there. */
  installedAt: Pos | null,
): Item[] {
  const start = v.kind === "end" ? v.start : (session.marksAfter(seq0).find((m) => m.kind === "start") ?? null);
  let endPos: Pos | null = v.kind === "end" ? v.end.pos : installedAt;
  // A continuation prompt's row is the shell asking, not output.
  if (v.kind === "continuation") endPos = rowStart(v.mark.pos);
  if (start) {
    const cap = session.command && session.command.startSeq === start.seq ? session.command.capture : null;
    return region(session.emulator, start.pos, endPos, cap, Infinity, budget).items;
  }
  // No start mark (a syntax error, a PS2, or the shell exited first): what followed the typed line.
  const r = withoutEcho(region(session.emulator, typedAt, endPos, typedCapture).items, line, true);
  return r.pending ? [] : r.items;
}

/**
 * The shell drew its prompt again below the typed line without running it, and may keep the line
 * in its editor (fish does on a syntax error when our Enter binding is not in place), where the
 * next command would be typed onto it. Keep what it printed, then cancel the line with ctrl+c.
 */
async function cancelDroppedLine(
  session: Session,
  redraw: MarkRecord,
  typedAt: Pos,
  line: string,
  signal?: AbortSignal,
): Promise<Item[]> {
  const r = withoutEcho(region(session.emulator, typedAt, rowStart(redraw.pos)).items, line, true);
  const seq = session.lastMarkSeq;
  session.write("\x03");
  const typed = { at: rowStart(redraw.pos), text: "" };
  await awaitCompletion(session, { since: seq, fallback: "none", typed, timeoutMs: DROPPED_REDRAW_MS, signal });
  return r.pending ? [] : r.items;
}
