/**
 * Asking the human on a plain (non-task) call in the 2026-07-28 era, where a server sends no
 * requests of its own (MRTR, SPEC "Protocol eras and Tasks"). A call that asks (term_secret, an
 * SSH password or passphrase, a guard confirmation) is answered `input_required` with the
 * question in `inputRequests` and an opaque `requestState`; the client asks its human and retries
 * the same call with `inputResponses` and that `requestState`, and the call goes on from where it
 * stopped with the answer. The call itself is kept running here between the two requests, rather
 * than run again from the start: an SSH login is not dialled twice, a guard question is answered
 * for the very command it was asked about, and a second question (a wrong password) is one more
 * round. A question nobody answers within the ttl is dismissed ("cancel"), as a human closing it.
 */
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Elicit, ElicitResult } from "../../api/elicit.ts";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { clip } from "../../util/quote.ts";
import { callTool, toolError } from "../call-tool.ts";
import type { ClientProfile } from "../client-profile.ts";
import { openSecretPage } from "../secret-page/one-time-page.ts";
import { formFallbackMessage, pageExpired, pageMessage, secretFields } from "../secret-page/url-elicit.ts";
import type { InputRequest } from "../tasks/task-store.ts";
import type { ToolContext } from "../tool.ts";
import { markUnasked } from "../unasked.ts";
import { isObject, type JsonObject } from "./protocol.ts";

const log = logger("mcp-2026");

/** The inputRequests key of the one question a call asks at a time. */
export const QUESTION_KEY = "answer";

export interface RetrySettings {
  /** How long a question waits for the client's retry before it is dismissed. */
  ttlMs: number;
  /** How long ptyhub's one-time secret page lives; undefined: secrets are asked in forms. */
  secretPageTtlMs: number | undefined;
}

/** How a client can be asked, from the capabilities its request declares. */
export interface Asker {
  /** Human name of the client, for the "answered on its own" wording. */
  clientName: string;
  /** It declared URL-mode elicitation: a secret may go on ptyhub's one-time page. */
  url: boolean;
}

/** A question the call waits on, until the retry answers it. */
interface OpenQuestion {
  request: InputRequest;
  /** Turns the client's response into the call's answer (URL mode: waits for the page's). */
  read(response: unknown): Promise<ElicitResult>;
  resolve(answer: ElicitResult): void;
  /** The question failed (the page expired unused): the call's own error handling says so. */
  reject(err: unknown): void;
  /** Ends it unanswered (the page closes). */
  dismiss(): void;
}

/** A call suspended at a question, between its input_required answer and the client's retry. */
interface Suspended {
  tool: string;
  args: string;
  clientId: string;
  asker: Asker;
  running: Promise<CallToolResult>;
  controller: AbortController;
  question: OpenQuestion | null;
  /** Wakes the round waiting for the call's next step when it asks. */
  onQuestion: (() => void) | null;
  /** When the input_required answer left, for telling a client's own instant refusal. */
  sentAt: number;
  expiry: ReturnType<typeof setTimeout> | undefined;
}

/** A tools/call as the client sent it. */
export interface Call {
  tool: string;
  rawArgs: unknown;
}

/** What the request is answered with. */
export type Round = { kind: "complete"; result: CallToolResult } | { kind: "input_required"; result: JsonObject };

const ASKED = Symbol("the call asks");

export class RetryQuestions {
  /** Suspended calls by their requestState (a random token: knowing it is what answers the question). */
  private readonly open = new Map<string, Suspended>();

  constructor(private readonly settings: RetrySettings) {}

  /** Runs a plain call whose questions are asked the era's way. */
  start(
    { tool, rawArgs }: Call,
    ctx: ToolContext,
    client: ClientProfile,
    asker: Asker,
    signal: AbortSignal,
  ): Promise<Round> {
    const controller = new AbortController();
    // Assigned before the call can ask: callTool checks its arguments (awaited) before it runs the tool.
    let s!: Suspended;
    const elicit: Elicit = (message, schema, options) =>
      new Promise<ElicitResult>((resolve, reject) => {
        try {
          s.question = this.question(message, schema, options?.secret === true, asker, { resolve, reject });
        } catch (err) {
          reject(err);
          return;
        }
        s.onQuestion?.();
      });
    s = {
      ...{ tool, args: stableJson(rawArgs ?? {}), clientId: ctx.clientId, asker, controller },
      running: callTool(tool, rawArgs, { ...ctx, elicit, signal: controller.signal }, client),
      ...{ question: null, onQuestion: null, sentAt: 0, expiry: undefined },
    };
    return this.round(s, signal);
  }

  /** The client's retry of a call that asked: the answer goes to the call, which goes on. */
  async retry(
    state: string,
    { tool, rawArgs }: Call,
    responses: unknown,
    ctx: ToolContext,
    client: ClientProfile,
    signal: AbortSignal,
  ): Promise<Round> {
    const s = this.open.get(state);
    if (!s || s.clientId !== ctx.clientId)
      return refused(
        tool,
        client,
        "the question this retry answers is no longer open (nobody answered it within " +
          `${Math.round(this.settings.ttlMs / 1000)} s, or ptyhub restarted); nothing was typed or run`,
        `Call ${tool} again: it asks anew.`,
      );
    if (s.tool !== tool || s.args !== stableJson(rawArgs ?? {}))
      return refused(
        tool,
        client,
        `this retry's tool or arguments differ from the call that asked (${s.tool}); the question stays open`,
        "Retry with the same name and arguments as the call that returned input_required.",
      );
    this.open.delete(state);
    clearTimeout(s.expiry);
    const question = s.question;
    s.question = null;
    if (question) {
      const response = isObject(responses) ? responses[QUESTION_KEY] : undefined;
      const tookMs = performance.now() - s.sentAt;
      // A retry cancelled while the page waits closes the page; the call then ends below.
      const stop = () => question.dismiss();
      signal.addEventListener("abort", stop, { once: true });
      try {
        question.resolve(markUnasked(await question.read(response), tookMs, s.asker.clientName));
      } catch (err) {
        question.dismiss();
        question.reject(err);
      } finally {
        signal.removeEventListener("abort", stop);
      }
    }
    return this.round(s, signal);
  }

  /** Waits for the call's next step: its end, or its next question (then input_required). */
  private async round(s: Suspended, signal: AbortSignal): Promise<Round> {
    const stop = () => s.controller.abort();
    signal.addEventListener("abort", stop, { once: true });
    try {
      const asked = new Promise<typeof ASKED>((resolve) => {
        s.onQuestion = () => resolve(ASKED);
        if (s.question) resolve(ASKED);
      });
      const next = await Promise.race([s.running, asked]);
      s.onQuestion = null;
      if (next !== ASKED) return { kind: "complete", result: next };
      return { kind: "input_required", result: this.suspend(s) };
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }

  /** Keeps the call under a fresh requestState and says what it asks. */
  private suspend(s: Suspended): JsonObject {
    const state = randomUUID();
    const question = s.question!;
    this.open.set(state, s);
    s.sentAt = performance.now();
    // Nobody retried: the question is dismissed as a human closing it, and the call ends so.
    s.expiry = setTimeout(() => {
      if (!this.open.delete(state)) return;
      log.info(`${s.tool}: nobody answered its question within ${this.settings.ttlMs} ms`);
      s.question = null;
      question.dismiss();
      question.resolve({ action: "cancel" });
    }, this.settings.ttlMs);
    s.expiry.unref?.();
    log.info(`${s.tool}: asks the human (input_required)`);
    return { requestState: state, inputRequests: { [QUESTION_KEY]: question.request } };
  }

  /** One question as inputRequests carries it: a form, or for a secret ptyhub's one-time page where it can be. */
  private question(
    message: string,
    schema: Record<string, unknown>,
    secret: boolean,
    asker: Asker,
    settle: Pick<OpenQuestion, "resolve" | "reject">,
  ): OpenQuestion {
    const ttl = this.settings.secretPageTtlMs;
    if (secret && asker.url && ttl !== undefined) {
      const fields = secretFields(schema);
      if (fields.length === 0) throw new Error("a secret question without fields");
      const page = openSecretPage({ message, fields, ttlMs: ttl });
      return {
        request: {
          method: "elicitation/create",
          params: { mode: "url", elicitationId: randomUUID(), url: page.url, message: pageMessage(message) },
        },
        // "accept" only says the human opens the page: the secret comes from the page, never the client.
        read: async (response) => {
          const consent = elicitResult(response);
          if (consent.action !== "accept") {
            page.close();
            return consent;
          }
          const values = await page.answer;
          if (values === null) throw pageExpired(ttl);
          return { action: "accept", content: values };
        },
        ...settle,
        dismiss: () => page.close(),
      };
    }
    const shown = secret ? formFallbackMessage(message) : message;
    return {
      request: { method: "elicitation/create", params: { mode: "form", message: shown, requestedSchema: schema } },
      read: async (response) => elicitResult(response),
      ...settle,
      dismiss: () => {},
    };
  }
}

/** The client's response as an elicitation result; anything unreadable is a dismissal. */
function elicitResult(response: unknown): ElicitResult {
  if (!isObject(response)) return { action: "cancel" };
  const action = response.action;
  if (action === "accept") return { action, content: isObject(response.content) ? response.content : {} };
  return { action: action === "decline" ? "decline" : "cancel" };
}

function refused(tool: string, client: ClientProfile, message: string, hint: string): Round {
  log.info(`${tool}: retry refused: ${clip(message)}`);
  return { kind: "complete", result: toolError(tool, new AppError("INVALID_ARGUMENT", message, hint), client) };
}

/** JSON with object keys sorted, so the same arguments compare equal however the client ordered them. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
