/**
 * A 2026-07-28 MCP client over stdio, as Claude Code 2.1.330 speaks it (no initialize; every
 * request carries its protocol version, client info and capabilities in `_meta`). The SDK 1.32.2
 * client speaks only 2025-11-25, so this one is written out: JSON-RPC lines, nothing more.
 */
import type { Subprocess } from "bun";
import { CLI } from "./mcp-client.ts";
import { readJsonLines } from "./json-lines.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface NewEraOptions {
  env?: Record<string, string>;
  clientName?: string;
  /** Declare the tasks extension on every request (as interactive Claude Code does). */
  tasks?: boolean;
  /** The elicitation capability declared; default forms only; null declares none. */
  elicitation?: Record<string, unknown> | null;
}

type Message = Record<string, any>;

export class NewEraClient {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  /** Every notification received, in order. */
  readonly notifications: Message[] = [];
  private readonly waiting = new Map<string | number, (m: Message) => void>();
  private readonly notificationWaiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  private nextId = 0;
  private closed: Promise<void>;

  constructor(private readonly opts: NewEraOptions = {}) {
    this.proc = Bun.spawn([process.execPath, CLI], {
      env: { ...(process.env as Record<string, string>), ...opts.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.closed = this.pump();
  }

  meta(tasks = this.opts.tasks ?? false): Message {
    return {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: this.opts.clientName ?? "ptyhub-tests", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {
        ...(this.opts.elicitation === null ? {} : { elicitation: this.opts.elicitation ?? { form: {} } }),
        ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
    };
  }

  /** Sends a request; resolves with the whole response (result or error). */
  request(method: string, params: Message = {}, opts: { tasks?: boolean; id?: string } = {}): Promise<Message> {
    const id = opts.id ?? ++this.nextId;
    const answer = new Promise<Message>((resolve) => this.waiting.set(id, resolve));
    this.write({ jsonrpc: "2.0", id, method, params: { ...params, _meta: this.meta(opts.tasks) } });
    return answer;
  }

  /** A request's result; throws on a JSON-RPC error. */
  async result(method: string, params: Message = {}, opts: { tasks?: boolean } = {}): Promise<Message> {
    const r = await this.request(method, params, opts);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.message}`), r.error);
    return r.result;
  }

  /** Sends a request written out whole (its own _meta); resolves with the response. */
  raw(message: Message & { id: string | number }): Promise<Message> {
    const answer = new Promise<Message>((resolve) => this.waiting.set(message.id, resolve));
    this.write(message);
    return answer;
  }

  write(message: Message): void {
    this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    this.proc.stdin.flush();
  }

  /** The first notification (already received or coming) that matches. */
  notification(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.notifications.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.notificationWaiters.push({ match, resolve }));
  }

  /**
   * A tools/call that asked the human (input_required), retried as a client does: the same name
   * and arguments with the question's answer and the requestState echoed.
   */
  answer(name: string, args: Message, asked: Message, response: Message): Promise<Message> {
    return this.request("tools/call", {
      name,
      arguments: args,
      requestState: asked.requestState,
      inputResponses: { [Object.keys(asked.inputRequests)[0]!]: response },
    });
  }

  /** Polls tasks/get at the task's interval until it leaves `working`. */
  async untilSettled(taskId: string): Promise<Message> {
    for (;;) {
      const r = await this.result("tasks/get", { taskId });
      if (r.status !== "working") return r;
      // The protocol's pacing: a client polls at the interval the server asks for.
      await Bun.sleep(r.pollIntervalMs);
    }
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    await this.proc.exited;
    await this.closed;
  }

  private pump(): Promise<void> {
    return readJsonLines(this.proc.stdout, (m) => this.take(m));
  }

  private take(m: Message): void {
    if (m.method === undefined && m.id !== undefined) {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
      return;
    }
    this.notifications.push(m);
    for (const w of [...this.notificationWaiters])
      if (w.match(m)) {
        this.notificationWaiters.splice(this.notificationWaiters.indexOf(w), 1);
        w.resolve(m);
      }
  }
}
