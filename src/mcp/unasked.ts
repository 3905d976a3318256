/**
 * Telling a client that declined on its own from a human who declined. Codex 0.169 offers
 * elicitation and answers every request "decline" by itself, within milliseconds, and the model
 * read "the human did not confirm" (issue 36 item 5). Nobody reads a question and answers it that
 * fast, so a refusal that quick is reported as the client's, with nobody asked, as for a client
 * that cannot ask at all (claude -p).
 */
import type { ElicitResult } from "../api/elicit.ts";

/**
 * A refusal within this long of the question is the client's own: a human needs longer to see a
 * dialog, read it and press a key (reaction to a plain signal alone is ~200 ms).
 */
export const UNASKED_ANSWER_MS = 250;

/** The answer, marked as the client's own (ElicitResult.unaskedWhy) when it refused that fast. */
export function markUnasked(answer: ElicitResult, tookMs: number, client: string): ElicitResult {
  if (answer.action === "accept" || tookMs >= UNASKED_ANSWER_MS) return answer;
  const ms = Math.round(tookMs);
  const why =
    `${client} answered "${answer.action}" ${ms} ms after the question was sent, faster than anyone can read ` +
    "it: the client answered on its own";
  return { ...answer, unaskedWhy: why };
}
