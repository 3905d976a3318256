/**
 * The guard's questions that wait for a human in the web view: the place a human answers when the
 * MCP client cannot ask (no elicitation), or answered on its own without showing anyone (Codex
 * declines every elicitation by itself, src/mcp/unasked.ts). A question is a yes/no: the schema's
 * boolean properties become true on approve; a question with any other kind of field (a secret, a
 * passphrase) is not one to answer with a button and is refused at once. Unanswered, a question
 * is withdrawn when its tool call is cancelled or after QUESTION_TTL_MS.
 *
 * The MCP Apps view (docs/web-view.md) shows and answers the questions of its own MCP client only:
 * the client whose calls asked them, through which the view's host calls term_view_questions.
 */
import { randomUUID } from "node:crypto";
import type { ElicitResult } from "../api/elicit.ts";
import { logger } from "../log.ts";

const log = logger("web");

/** How long a question waits for a human in the web view before it counts as unanswered. */
export const QUESTION_TTL_MS = 5 * 60_000;
/**
 * A web view that fetched the questions this recently is open: only then is a question put up
 * there. With nobody watching, a client that cannot ask is refused at once, as before, instead of
 * leaving the agent waiting QUESTION_TTL_MS for nobody (the page polls every second).
 */
export const WATCHED_WITHIN_MS = 5_000;

export interface PendingQuestion {
  id: string;
  message: string;
  /** Who asked (the MCP client's reader id). */
  client: string;
  asked_at: string;
}

interface Waiting {
  question: PendingQuestion;
  keys: string[];
  settle: (answer: ElicitResult | null) => void;
}

/** The schema's property names when every one of them is a boolean, else null. */
function booleanKeys(schema: Record<string, unknown>): string[] | null {
  const props = schema.properties;
  if (typeof props !== "object" || props === null) return null;
  const keys = Object.keys(props);
  const allBoolean = Object.values(props).every(
    (p) => typeof p === "object" && p !== null && (p as { type?: unknown }).type === "boolean",
  );
  return allBoolean && keys.length > 0 ? keys : null;
}

export class PendingQuestions {
  private readonly waiting = new Map<string, Waiting>();
  private lastLooked = Number.NEGATIVE_INFINITY;
  /** When an MCP Apps view last looked at each client's questions. */
  private readonly viewLooked = new Map<string, number>();

  /**
   * Whether a human is there to answer `client`'s question now: the web view is open (it looked at
   * the questions just now), or an MCP Apps view of that client is.
   */
  watched(client?: string): boolean {
    const now = Date.now();
    if (now - this.lastLooked < WATCHED_WITHIN_MS) return true;
    const viewed = client === undefined ? undefined : this.viewLooked.get(client);
    return viewed !== undefined && now - viewed < WATCHED_WITHIN_MS;
  }

  /**
   * Puts a question up for the human and waits: the answer, or null when nobody answered in time
   * or the call was cancelled. Throws for a question that is not a yes/no.
   */
  ask(message: string, schema: Record<string, unknown>, client: string, signal?: AbortSignal): Promise<ElicitResult> {
    const keys = booleanKeys(schema);
    if (keys === null) return Promise.reject(new Error("only yes/no questions are asked in the web view"));
    const id = randomUUID();
    return new Promise<ElicitResult>((resolve, reject) => {
      const done = (answer: ElicitResult | null) => {
        if (!this.waiting.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        if (answer) resolve(answer);
        else reject(new Error("nobody answered the question in the web view"));
      };
      const aborted = () => done(null);
      const timer = setTimeout(aborted, QUESTION_TTL_MS);
      signal?.addEventListener("abort", aborted, { once: true });
      const question = { id, message, client, asked_at: new Date().toISOString() };
      this.waiting.set(id, { question, keys, settle: done });
      if (signal?.aborted) aborted();
    });
  }

  /** The questions waiting; a web view asking counts as a human watching. */
  list(): PendingQuestion[] {
    this.lastLooked = Date.now();
    return [...this.waiting.values()].map((w) => w.question);
  }

  /** The questions `client`'s calls asked, as its MCP Apps view shows them; looking counts as watching. */
  listFor(client: string): PendingQuestion[] {
    this.viewLooked.set(client, Date.now());
    return [...this.waiting.values()].map((w) => w.question).filter((q) => q.client === client);
  }

  /** The human's answer in `client`'s MCP Apps view: only to a question that client's calls asked. */
  answerFor(client: string, id: string, allow: boolean): boolean {
    return this.waiting.get(id)?.question.client === client && this.answer(id, allow, "MCP Apps view");
  }

  /** The human's answer; false when there is no such question (answered, withdrawn or expired). */
  answer(id: string, allow: boolean, where = "web view"): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    log.info(`question ${id} from ${w.question.client} ${allow ? "approved" : "declined"} in the ${where}`);
    const content = Object.fromEntries(w.keys.map((k) => [k, allow]));
    w.settle(allow ? { action: "accept", content } : { action: "decline" });
    return true;
  }
}
