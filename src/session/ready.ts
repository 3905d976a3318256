/**
 * Waiting for a freshly started shell to reach its first prompt, so the first command typed into
 * it is not typed into the middle of its start-up (rc files, motd).
 */
import type { Session } from "./session.ts";
import { waitFor } from "./wait.ts";

export async function ensureReady(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  if (session.integration === "none" || session.phase !== "starting" || session.exit) return true;
  const r = await waitFor(session, () => (session.phase !== "starting" || session.exit ? { done: true } : null), { timeoutMs, signal });
  return r === true;
}
