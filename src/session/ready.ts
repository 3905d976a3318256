/**
 * Waiting for a freshly started shell to reach its first prompt, so the first command typed into
 * it is not typed into the middle of its start-up (rc files, motd).
 */
import type { Session } from "./session.ts";
import { waitFor } from "./wait.ts";

/** How long to wait for a prompt to be drawn (B mark) after a command ended. */
const PROMPT_DRAW_WAIT_MS = 1000;
/**
 * After an interrupt, how long the interrupted command's end mark is awaited before a term_exec
 * answers SESSION_BUSY: the shell needs a moment (more on a loaded machine) to reap the job and
 * report it, and the caller who pressed ctrl+c expects the prompt back.
 */
export const INTERRUPTED_END_WAIT_MS = 2000;

export async function ensureReady(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  if (session.integration === "none" || session.exit) return true;
  if (session.phase === "starting") {
    const r = await waitFor(session, () => (session.phase !== "starting" || session.exit ? { done: true } : null), {
      timeoutMs,
      signal,
    });
    if (r !== true) return false;
  }
  await waitForPromptDrawn(session, Math.min(timeoutMs, PROMPT_DRAW_WAIT_MS), signal);
  return true;
}

/**
 * Text typed between a command's end and its next prompt is echoed twice (by the tty, then by
 * the line editor when it starts), which would fool echo removal; so input waits for the B mark
 * when this shell emits one.
 */
export async function waitForPromptDrawn(
  session: Session,
  timeoutMs: number,
  signal?: AbortSignal,
  evenIfUnseen = false,
): Promise<void> {
  if (session.integration === "none" || session.phase !== "prompt" || session.inputReady || session.exit) return;
  if (!session.readyMarks && !evenIfUnseen) return;
  await waitFor(
    session,
    () => (session.inputReady || session.phase !== "prompt" || session.exit ? { done: true } : null),
    { timeoutMs, signal },
  );
}

/**
 * A command was interrupted a moment ago and still runs (its end mark not parsed yet): waits for
 * that end, up to INTERRUPTED_END_WAIT_MS after the interrupt, so a term_exec right after a
 * `term_send keys:["ctrl+c"]` finds the prompt instead of SESSION_BUSY (issue 21).
 */
export async function awaitInterruptedEnd(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const at = session.interruptedAt;
  if (session.phase !== "running" || at === null || session.exit) return;
  // A program that caught the interrupt and waits for the user (a REPL's prompt, a pager) will not end.
  if (session.state() !== "running") return;
  const left = Math.min(timeoutMs, at + INTERRUPTED_END_WAIT_MS - Date.now());
  if (left <= 0) return;
  const over = () => session.phase !== "running" || session.exit !== null || session.state() !== "running";
  await waitFor(session, () => (over() ? { done: true } : null), {
    timeoutMs: left,
    signal,
  });
}
