/**
 * Long tool calls as MCP Tasks. A `term_exec`, `term_send` or `term_read` from a client that
 * declared the tasks extension runs as usual; if it has not ended within the inline window its
 * answer is a task, and the call goes on without the request: `tasks/get` reports it `working`
 * (last output line, elapsed), then `completed` with exactly the result the inline call would
 * have given. A `term_exec` that stops at a password, yes/no or pager prompt becomes
 * `input_required` with a form for the human; the answer (`tasks/update`) is typed into the
 * session, a password as a secret (redacted, never in a result or the audit trail), and the task
 * follows the command on. A question the call itself asks the human (a guard confirmation, the
 * only elicitation a task's tools make) becomes `input_required` with that question's own form,
 * and its `tasks/update` answer goes back to the call. `tasks/cancel` sends ctrl+c to the
 * session's foreground job.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Elicit, ElicitResult } from "../../api/elicit.ts";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { DEFAULT_SESSION } from "../../api/session-id.ts";
import { clip } from "../../util/quote.ts";
import { addHeaderNote } from "../client-budget.ts";
import { type CheckedCall, renderOutput, runCheckedCall, toolDefs, toolError } from "../call-tool.ts";
import type { ClientProfile } from "../client-profile.ts";
import type { ToolContext } from "../tool.ts";
import { type InputRequest, Task, type TaskSnapshot, TaskStore } from "./task-store.ts";
import { openSecretPage, type SecretPage } from "../secret-page/one-time-page.ts";
import { randomUUID } from "node:crypto";
import type { TaskSettings } from "./settings.ts";

const log = logger("tasks");

/** The reader id for status-message screen reads: never moves an agent's read cursor. */
const STATUS_READER = "mcp-tasks";
/** Budget of the screen read behind a status message (only its last line is shown). */
const STATUS_READ_TOKENS = 400;
const STATUS_LINE_CHARS = 160;
/** How long the output after a cancel's ctrl+c is awaited before the task says it is cancelled. */
const CANCEL_SETTLE_MS = 2000;
/** The input key of the one question a waiting task asks. */
const QUESTION_KEY = "answer";
/** Floor of the wait after an answer, when the call's own timeout is nearly spent. */
const MIN_FOLLOW_MS = 5000;
/** Upper bound of term_send's wait_ms (its schema). */
const MAX_FOLLOW_MS = 600_000;
const DEFAULT_MAX_TOKENS = 2000;

/** Prompt states a human can answer for the model. */
type Question = "password" | "confirm" | "pager";
const QUESTIONS: ReadonlySet<string> = new Set<Question>(["password", "confirm", "pager"]);
/** How a task's status begins while it waits on a human (Claude Code's task panel shows it). */
const HUMAN_ASKED_WORDS = "a human is being asked";
/** What the human is asked for at each prompt, in a task's status. */
const QUESTION_WORDS: Record<Question, string> = {
  password: "the password",
  confirm: "a yes/no answer",
  pager: "how to go on in the pager",
};

export type Started = { kind: "inline"; result: CallToolResult } | { kind: "task"; snapshot: TaskSnapshot };

/** What a task needs while it runs (not part of what tasks/get shows). */
interface Live {
  task: Task;
  call: CheckedCall;
  client: ClientProfile;
  ctx: ToolContext;
  session: string;
  startedAt: number;
  controller: AbortController;
  /** The prompt the task waits at, while input_required. */
  question: Question | null;
  /** The call's own question to the human (its elicitation), while input_required. */
  asking: Asking | null;
  /** How long a password prompt's one-time page lives; undefined: the client gets a form. */
  secretPageTtlMs: number | undefined;
  /** The one-time page a password prompt waits on (URL mode), while it is open. */
  page: SecretPage | null;
  /** When the open question to the human was asked (performance.now()), while one is open. */
  askedAt: number | null;
  /** What the model is told in the result's header about the humans asked on the way. */
  humanNotes: string[];
}

/** An elicitation the running call waits on; answered by tasks/update. */
interface Asking {
  message: string;
  schema: Record<string, unknown>;
  resolve(answer: ElicitResult): void;
}

type Outcome = { ok: true; output: Record<string, unknown>; result: CallToolResult } | { ok: false; error: unknown };

const WINDOW_PASSED = Symbol("inline window passed");
const HUMAN_ASKED = Symbol("the call asks the human");

export class ToolTasks {
  private readonly store = new TaskStore();
  private readonly live = new Map<string, Live>();

  /**
   * Runs a call; answers inline when it ends within the window (and asks nothing of a human),
   * else as a task that goes on in the background.
   */
  async start(call: CheckedCall, ctx: ToolContext, client: ClientProfile, settings: TaskSettings): Promise<Started> {
    const controller = new AbortController();
    const startedAt = Date.now();
    // The new era has no server-initiated requests: the call's questions wait for the task's
    // inputRequests. One asked within the inline window makes the call a task at once.
    let live: Live | null = null;
    let early: Asking | null = null;
    let humanAsked!: () => void;
    const asked = new Promise<typeof HUMAN_ASKED>((resolve) => (humanAsked = () => resolve(HUMAN_ASKED)));
    const elicit: Elicit = (message, schema) =>
      new Promise<ElicitResult>((resolve) => {
        const asking: Asking = { message, schema, resolve };
        if (live) this.ask(live, asking);
        else {
          early = asking;
          humanAsked();
        }
      });
    const running: Promise<Outcome> = runCheckedCall(call, { ...ctx, elicit, signal: controller.signal }, client).then(
      (r) => ({ ok: true, ...r }),
      (error: unknown) => ({ ok: false, error }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const window = new Promise<typeof WINDOW_PASSED>((resolve) => {
      timer = setTimeout(() => resolve(WINDOW_PASSED), settings.inlineMs);
    });
    const first = await Promise.race([running, window, asked]);
    clearTimeout(timer);
    if (first !== WINDOW_PASSED && first !== HUMAN_ASKED && questionOf(call, first) === null)
      return { kind: "inline", result: first.ok ? first.result : toolError(call.tool.name, first.error, client) };

    const session = sessionOf(call);
    const task = new Task(
      { ttlMs: settings.ttlMs, pollIntervalMs: settings.pollIntervalMs },
      `${call.tool.name} runs in the background in session ${session}; its result comes when it ends`,
    );
    const started: Live = {
      ...{ task, call, client, ctx, session, startedAt, controller },
      ...{ question: null, asking: null, secretPageTtlMs: settings.secretPageTtlMs, page: null },
      ...{ askedAt: null, humanNotes: [] },
    };
    live = started;
    this.store.add(task);
    this.live.set(task.id, started);
    log.info(`task ${task.id}: ${call.tool.name} in ${session} moved to the background`);
    if (first === WINDOW_PASSED || first === HUMAN_ASKED) void running.then((o) => this.settle(started, o));
    else this.settle(started, first);
    if (early) this.ask(started, early);
    return { kind: "task", snapshot: task.snapshot() };
  }

  /** tasks/get: the task as it is now (a working one with a fresh status line); undefined if unknown. */
  async get(id: string): Promise<TaskSnapshot | undefined> {
    const task = this.store.get(id);
    if (!task) {
      this.live.delete(id);
      return undefined;
    }
    const live = this.live.get(id);
    if (live && task.status === "working") {
      const line = await this.lastLine(live);
      const elapsed = Math.round((Date.now() - live.startedAt) / 1000);
      const message = `${live.call.tool.name} in session ${live.session}, ${elapsed} s${line ? `: ${line}` : ""}`;
      if (task.status === "working") task.update({ statusMessage: message });
    }
    return task.snapshot();
  }

  /** The call asks the human (a guard confirmation): the task waits with that question's own form. */
  private ask(live: Live, asking: Asking): void {
    if (live.task.ended) {
      asking.resolve({ action: "cancel" });
      return;
    }
    live.asking = asking;
    live.askedAt = performance.now();
    // A cancelled task, or one nobody answered within its ttl, answers its open question "cancel":
    // the call ends as when a human dismisses it, and does not hold the session forever.
    const dismiss = () => {
      if (live.asking !== asking) return;
      live.asking = null;
      asking.resolve({ action: "cancel" });
    };
    live.controller.signal.addEventListener("abort", dismiss, { once: true });
    setTimeout(dismiss, live.task.timing.ttlMs).unref();
    const question = clip(firstLine(asking.message), STATUS_LINE_CHARS);
    live.task.update({
      status: "input_required",
      statusMessage: `${HUMAN_ASKED_WORDS}: ${question} (waiting for their answer)`,
      inputRequests: {
        [QUESTION_KEY]: {
          method: "elicitation/create",
          params: { mode: "form", message: asking.message, requestedSchema: asking.schema },
        },
      },
    });
    log.info(`task ${live.task.id}: the call asks the human`);
  }

  /** tasks/update: types the human's answer to the question the task waits at, and follows the command on. */
  async answer(id: string, responses: Record<string, unknown>): Promise<void> {
    const live = this.known(id);
    if (live.task.status !== "input_required" || (live.question === null && live.asking === null))
      throw new AppError(
        "INVALID_ARGUMENT",
        `task ${id} is ${live.task.status}, not waiting for input`,
        "Poll tasks/get.",
      );
    const response = responses[QUESTION_KEY];
    if (!isRecord(response) || typeof response.action !== "string")
      throw new AppError(
        "INVALID_ARGUMENT",
        `tasks/update for ${id} needs inputResponses.${QUESTION_KEY} = {action, content}`,
        'Answer the inputRequests key "answer" with an elicitation result.',
      );
    const content = isRecord(response.content) ? response.content : {};
    if (live.asking) {
      const asking = live.asking;
      live.asking = null;
      live.task.update({
        status: "working",
        statusMessage: `answered; ${live.call.tool.name} goes on in ${live.session}`,
      });
      const action = response.action === "accept" || response.action === "decline" ? response.action : "cancel";
      this.noteAnswer(live, action);
      asking.resolve(action === "accept" ? { action, content } : { action });
      return;
    }
    if (live.page) {
      // URL mode: "accept" only says the human opens the page; the password comes from the page.
      if (response.action === "accept")
        live.task.update({
          status: "working",
          statusMessage: `${HUMAN_ASKED_WORDS} to type the password on ptyhub's page (session ${live.session})`,
        });
      else live.page.close();
      return;
    }
    const question = live.question;
    if (question === null) return;
    live.question = null;
    this.noteAnswer(live, response.action === "accept" ? "accept" : "cancel");
    live.task.update({ status: "working", statusMessage: `answer typed into session ${live.session}` });
    void this.follow(live, typedAnswer(question, response.action, content[QUESTION_KEY]));
  }

  /** tasks/cancel: ctrl+c to the session's foreground job; the task ends as cancelled. */
  async cancel(id: string): Promise<TaskSnapshot> {
    const live = this.known(id);
    if (live.task.ended) return live.task.snapshot();
    live.task.update({
      status: "cancelled",
      statusMessage: `cancelled: ctrl+c sent to the foreground job of session ${live.session}`,
    });
    try {
      await live.ctx.host.call(
        "send",
        { session: live.session, keys: ["ctrl+c"], wait_ms: CANCEL_SETTLE_MS, max_tokens: DEFAULT_MAX_TOKENS },
        { clientId: live.ctx.clientId },
      );
    } catch (err) {
      log.warn(`task ${id}: ctrl+c to ${live.session} failed: ${clip(String(err))}`);
    }
    live.controller.abort();
    live.page?.close();
    this.live.delete(id);
    return live.task.snapshot();
  }

  private known(id: string): Live {
    const live = this.live.get(id);
    if (!live || !this.store.get(id))
      throw new AppError(
        "INVALID_ARGUMENT",
        `unknown task ${clip(id, 80)}`,
        "It ended more than ttlMs ago, or is not yours.",
      );
    return live;
  }

  /** A call's outcome: completed, or input_required when a term_exec stopped at a prompt a human can answer. */
  private settle(live: Live, outcome: Outcome): void {
    const question = questionOf(live.call, outcome);
    if (question !== null && outcome.ok) {
      this.waitAtPrompt(live, question, outcome.output);
      return;
    }
    const result = withHumanNotes(
      live,
      outcome.ok ? outcome.result : toolError(live.call.tool.name, outcome.error, live.client),
    );
    const changed = live.task.update({ status: "completed", statusMessage: completionLine(live, outcome), result });
    if (changed) log.info(`task ${live.task.id}: completed`);
    this.live.delete(live.task.id);
  }

  /**
   * The command waits at a prompt a human can answer: the task becomes input_required with a form,
   * or, for a password when the client offers URL mode, with ptyhub's one-time page: the password
   * typed there goes into the session without passing through tasks/update (the client).
   */
  private waitAtPrompt(live: Live, question: Question, output: Record<string, unknown>): void {
    live.question = question;
    live.askedAt = performance.now();
    const prompt = promptLine(output);
    let request = inputRequest(question, prompt, live.session);
    if (question === "password" && live.secretPageTtlMs !== undefined) {
      const page = openSecretPage({
        message: request.params.message,
        fields: [{ key: QUESTION_KEY, title: "Password", description: "Typed into the session, then Enter." }],
        ttlMs: live.secretPageTtlMs,
      });
      live.page = page;
      void page.answer.then((values) => this.pageAnswered(live, page, values));
      request = {
        method: "elicitation/create",
        params: {
          mode: "url",
          elicitationId: randomUUID(),
          url: page.url,
          message:
            `${request.params.message} Open this one-time ptyhub page on this computer and type it there: it goes ` +
            "straight to the terminal, never through this client or the AI agent.",
        },
      };
    }
    const changed = live.task.update({
      status: "input_required",
      statusMessage:
        `${HUMAN_ASKED_WORDS} for ${QUESTION_WORDS[question]} at the prompt in session ${live.session}` +
        (prompt ? `: ${JSON.stringify(prompt)}` : ""),
      inputRequests: { [QUESTION_KEY]: request },
    });
    if (changed) log.info(`task ${live.task.id}: waits for the human (${question}${live.page ? ", on its page" : ""})`);
  }

  /** The one-time page was used (values) or closed unanswered (null: declined, expired or cancelled). */
  private pageAnswered(live: Live, page: SecretPage, values: Record<string, string> | null): void {
    if (live.page !== page || live.task.ended) return;
    live.page = null;
    live.question = null;
    const secret = values?.[QUESTION_KEY];
    this.noteAnswer(live, secret !== undefined ? "accept" : "cancel");
    live.task.update({
      status: "working",
      statusMessage:
        secret !== undefined ? `password typed into session ${live.session}` : `no password given: ctrl+c sent`,
    });
    void this.follow(live, secret !== undefined ? { secret } : { keys: ["ctrl+c"] });
  }

  /** After an answer: types it, then waits as term_send does for the command to end or ask again. */
  private async follow(live: Live, answer: Answer): Promise<void> {
    const { host, clientId } = live.ctx;
    const signal = live.controller.signal;
    const args = live.call.args;
    const timeout = typeof args.timeout_ms === "number" ? args.timeout_ms : MAX_FOLLOW_MS;
    const waitMs = Math.min(MAX_FOLLOW_MS, Math.max(MIN_FOLLOW_MS, timeout - (Date.now() - live.startedAt)));
    const maxTokens = typeof args.max_tokens === "number" ? args.max_tokens : DEFAULT_MAX_TOKENS;
    const send = (await toolDefs()).get("term_send");
    const sendCall: CheckedCall | null = send
      ? { tool: send, args: {}, clamp: live.call.clamp, waitClamp: null }
      : null;
    let outcome: Outcome;
    try {
      // A secret is typed (and registered for redaction) without Enter; the Enter that follows is
      // an ordinary key, so the wait for the command to end is term_send's own.
      if (answer.secret !== undefined)
        await host.call(
          "typeSecret",
          { session: live.session, secret: answer.secret, enter: false },
          { clientId, signal },
        );
      const typed = answer.secret !== undefined ? { keys: ["enter"] } : answer;
      const output = await host.call(
        "send",
        { session: live.session, ...typed, wait_ms: waitMs, max_tokens: maxTokens },
        { clientId, signal },
      );
      if (!sendCall) throw new Error("term_send is not among the tools");
      outcome = { ok: true, output, result: renderOutput(sendCall, output, live.client) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    // A send result has `state` but no `status`: another prompt makes the task ask again.
    const state = outcome.ok ? outcome.output.state : null;
    if (outcome.ok && typeof state === "string" && QUESTIONS.has(state)) {
      this.waitAtPrompt(live, state as Question, outcome.output);
      return;
    }
    const result = withHumanNotes(
      live,
      outcome.ok ? outcome.result : toolError("term_send", outcome.error, live.client),
    );
    live.task.update({ status: "completed", statusMessage: completionLine(live, outcome), result });
    this.live.delete(live.task.id);
  }

  /** Keeps, for the model, that a human was asked on the way and how long the answer took. */
  private noteAnswer(live: Live, action: "accept" | "decline" | "cancel"): void {
    const secs = live.askedAt === null ? 0 : Math.round((performance.now() - live.askedAt) / 1000);
    live.askedAt = null;
    const answered = action === "accept" ? "answered" : `answered "${action}"`;
    live.humanNotes.push(`a human was asked and ${answered} after ${secs} s`);
  }

  /** The session's last non-blank screen line, for a status message (empty when unreadable). */
  private async lastLine(live: Live): Promise<string> {
    try {
      const r = await live.ctx.host.call(
        "read",
        { session: live.session, mode: "screen", max_tokens: STATUS_READ_TOKENS },
        { clientId: STATUS_READER },
      );
      return clip(lastNonBlank(r.output), STATUS_LINE_CHARS);
    } catch {
      return "";
    }
  }
}

/** A result with the humans asked on the way named in its header (an error's text is left as it is). */
function withHumanNotes(live: Live, result: CallToolResult): CallToolResult {
  const [first, ...rest] = result.content;
  if (live.humanNotes.length === 0 || result.isError || first?.type !== "text") return result;
  return { ...result, content: [{ ...first, text: addHeaderNote(first.text, live.humanNotes.join("; ")) }, ...rest] };
}

function firstLine(text: string): string {
  const eol = text.indexOf("\n");
  return eol < 0 ? text : text.slice(0, eol);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sessionOf(call: CheckedCall): string {
  return typeof call.args.session === "string" ? call.args.session : DEFAULT_SESSION;
}

/** The prompt a term_exec stopped at, when a human can answer it; null otherwise. */
function questionOf(call: CheckedCall, outcome: Outcome): Question | null {
  if (call.tool.name !== "term_exec" || !outcome.ok || outcome.output.status !== "input") return null;
  const state = outcome.output.state;
  return typeof state === "string" && QUESTIONS.has(state) ? (state as Question) : null;
}

function lastNonBlank(text: string): string {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim() !== "") return lines[i]!.trim();
  return "";
}

function promptLine(output: Record<string, unknown>): string {
  return typeof output.output === "string" ? clip(lastNonBlank(output.output), STATUS_LINE_CHARS) : "";
}

function completionLine(live: Live, outcome: Outcome): string {
  const secs = Math.round((Date.now() - live.startedAt) / 1000);
  if (!outcome.ok) return `${live.call.tool.name} in session ${live.session} failed after ${secs} s`;
  const code = outcome.output.exit_code;
  const exit = typeof code === "number" ? `, exit ${code}` : "";
  return `${live.call.tool.name} in session ${live.session} ended after ${secs} s${exit}`;
}

/** The form shown to the human for the prompt a command stopped at. */
function inputRequest(question: Question, prompt: string, session: string): InputRequest {
  const where = `A command in terminal session ${session} is waiting`;
  const shown = prompt ? `: ${JSON.stringify(prompt)}` : "";
  const forms: Record<Question, { message: string; property: Record<string, unknown> }> = {
    password: {
      message: `${where} for a password${shown}. It is typed into the session and never shown to the model.`,
      property: { type: "string", title: "Password", description: "Typed into the session, then Enter" },
    },
    confirm: {
      message: `${where} for a yes/no answer${shown}.`,
      property: { type: "boolean", title: "Yes", description: "Checked types y, unchecked types n", default: false },
    },
    pager: {
      message: `${where} in a pager${shown}.`,
      property: { type: "string", title: "Pager", enum: ["quit", "next page"], default: "quit" },
    },
  };
  const form = forms[question];
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: form.message,
      requestedSchema: { type: "object", properties: { [QUESTION_KEY]: form.property }, required: [QUESTION_KEY] },
    },
  };
}

/** What is typed for an answer: a secret (never echoed into results), text, or keys. */
interface Answer {
  secret?: string;
  text?: string;
  keys?: string[];
  enter?: boolean;
}

/** Declined or dismissed: the command is interrupted rather than left waiting. */
function typedAnswer(question: Question, action: string, value: unknown): Answer {
  if (action !== "accept") return question === "pager" ? { text: "q", enter: false } : { keys: ["ctrl+c"] };
  switch (question) {
    case "password":
      return typeof value === "string" ? { secret: value } : { keys: ["ctrl+c"] };
    case "confirm":
      return { text: value === true ? "y" : "n", enter: true };
    case "pager":
      return value === "next page" ? { text: " ", enter: false } : { text: "q", enter: false };
  }
}
