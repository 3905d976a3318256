/**
 * Waiting for a freshly started shell to reach its first prompt, so the first command typed into
 * it is not typed into the middle of its start-up (rc files, motd).
 */
import type { Session } from "./session.ts";
import { waitFor } from "./wait.ts";

/** How long to wait for a prompt to be drawn (B mark) after a command ended. */
const PROMPT_DRAW_WAIT_MS = 1000;

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
