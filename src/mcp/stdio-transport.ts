/**
 * The stdio transport: one JSON-RPC message per line on stdin, one per line on stdout. It
 * replaces the SDK's StdioServerTransport, which closes itself for good when a line passes its
 * 10 MiB buffer limit, leaving the server alive, deaf and holding its shells (issue #10). Here an
 * oversized line is skipped in constant memory and answered (an error result for tools/call, a
 * JSON-RPC error otherwise) when its `id` can be recovered; a line that is not JSON gets a parse
 * error, one that is JSON but not a servable message (a batch, an unusable id) an Invalid Request.
 * The end of stdin does not close it: replies to calls still running (cut short by the shutdown
 * it starts) are written until `close()`, and `settled()` waits for them.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../api/errors.ts";
import { logger } from "../log.ts";
import { clip } from "../util/quote.ts";
import { EnvelopeScanner, type Envelope } from "./request-envelope.ts";
import { classifyMessage, INVALID_REQUEST } from "./invalid-request.ts";
import { errorResult } from "./result.ts";

const log = logger("stdio");

/**
 * Largest request line accepted: the SDK's own limit, so clients see the same bound whichever
 * transport they meet. Every tool's arguments, at their schema bounds, fit well below it.
 */
export const MAX_REQUEST_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

const NEWLINE = 0x0a;
/** JSON-RPC 2.0: the line is not JSON. */
const PARSE_ERROR = -32700;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping the rest of an oversized line. */
  private oversized: { scanner: EnvelopeScanner; bytes: number } | null = null;
  private closed = false;
  /** Ids of the client's requests not answered yet. */
  private readonly unanswered = new Set<string | number>();
  private onSettled: (() => void) | null = null;
  /** Requests whose answer someone waits to see written out (see delivered()). */
  private readonly deliveries = new Map<string | number, { promise: Promise<void>; resolve(): void; reject(): void }>();

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = MAX_REQUEST_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer) => this.take(chunk);
  private readonly onInputError = (err: Error) => this.onerror?.(err);

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
  }

  /** Resolves once every request received has been answered, or after `ms`. */
  settled(ms: number): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.onSettled = done;
    });
  }

  /**
   * Settles once the answer to request `id` has been flushed to the output (rejects if it never
   * is: cancelled, or the transport closed). A read cursor moved by the call commits only then.
   */
  delivered(id: string | number): Promise<void> {
    let d = this.deliveries.get(id);
    if (!d) {
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      // Nobody may wait on a rejection (a cancelled call): it is not an error of its own.
      promise.catch(() => undefined);
      d = { promise, resolve, reject };
      this.deliveries.set(id, d);
    }
    return d.promise;
  }

  private forgetDelivery(id: string | number): void {
    this.deliveries.get(id)?.reject();
    this.deliveries.delete(id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.deliveries.keys()]) this.forgetDelivery(id);
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    this.pending = [];
    this.oversized = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const id = ("result" in message || "error" in message) && message.id !== undefined ? message.id : null;
    const delivery = id !== null ? this.deliveries.get(id) : undefined;
    if (id !== null) this.deliveries.delete(id);
    const sent = this.write(message, delivery);
    const answered = id !== null && this.unanswered.delete(id);
    if (answered && this.unanswered.size === 0) {
      void sent.finally(() => this.onSettled?.());
    }
    return sent;
  }

  /** Writes one message; `flushed` hears when the output took it (or that it never will). */
  private write(message: object, flushed?: { resolve(): void; reject(): void }): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        flushed?.reject();
        return reject(new Error("the stdio transport is closed"));
      }
      const done = flushed ? (err?: Error | null) => (err ? flushed.reject() : flushed.resolve()) : undefined;
      if (this.output.write(`${JSON.stringify(message)}\n`, done)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  private take(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.append(chunk.subarray(start, end));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.scanner.feed(part);
      this.oversized.bytes += part.length;
      return;
    }
    if (this.pendingBytes + part.length <= this.maxLineBytes) {
      this.pending.push(part);
      this.pendingBytes += part.length;
      return;
    }
    // Too long to keep: from here on only the envelope is read, and the buffered part is freed.
    const scanner = new EnvelopeScanner();
    for (const held of this.pending) scanner.feed(held);
    scanner.feed(part);
    this.oversized = { scanner, bytes: this.pendingBytes + part.length };
    this.pending = [];
    this.pendingBytes = 0;
  }

  private endLine(): void {
    if (this.oversized) {
      const { scanner, bytes } = this.oversized;
      this.oversized = null;
      this.answerOversized(scanner.result(), bytes);
      return;
    }
    const line = Buffer.concat(this.pending, this.pendingBytes).toString("utf8").replace(/\r$/, "");
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim().length === 0) return;
    this.deliver(line);
  }

  private deliver(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      this.reportBadLine(`not JSON: ${clip((err as Error).message)}`);
      this.reply({
        jsonrpc: "2.0",
        id: null,
        error: { code: PARSE_ERROR, message: "Parse error: the line is not JSON" },
      });
      return;
    }
    const classified = classifyMessage(json);
    if (classified.kind === "invalid") {
      this.reportBadLine(classified.why);
      this.write(classified.reply).catch((err) => this.onerror?.(err));
      return;
    }
    const message = classified.message;
    if ("method" in message && "id" in message) this.unanswered.add(message.id);
    // A cancelled request gets no answer: forget it, or the set would grow with every cancel.
    if ("method" in message && message.method === "notifications/cancelled") {
      const cancelled = message.params?.requestId;
      const isId = typeof cancelled === "string" || typeof cancelled === "number";
      const known = isId && this.unanswered.delete(cancelled);
      if (isId) this.forgetDelivery(cancelled);
      if (known && this.unanswered.size === 0) this.onSettled?.();
    }
    this.onmessage?.(message);
  }

  private answerOversized(envelope: Envelope, bytes: number): void {
    const what = `a ${envelope.method ? clip(envelope.method, 40) : "message"} of ${bytes} bytes`;
    log.warn(`skipped ${what}: over the ${this.maxLineBytes}-byte request limit`);
    if (envelope.id === null || envelope.method === null) return;
    const limit = `${this.maxLineBytes}-byte (${this.maxLineBytes / 2 ** 20} MiB)`;
    const message = `the request is ${bytes} bytes, over the ${limit} limit; nothing was done`;
    if (envelope.method === "tools/call") {
      const err = new AppError(
        "INVALID_ARGUMENT",
        message,
        "Send less per call: long input in several term_send calls, long output read with term_read.",
      );
      this.reply({ jsonrpc: "2.0", id: envelope.id, result: errorResult(err) });
    } else {
      this.reply({ jsonrpc: "2.0", id: envelope.id, error: { code: INVALID_REQUEST, message } });
    }
  }

  private reportBadLine(why: string): void {
    this.onerror?.(new Error(`ignored a line from the client: ${why}`));
  }

  /**
   * Answers written by the transport itself (a parse error's id is null, which the SDK's message
   * type does not allow); a failed write is reported, not thrown.
   */
  private reply(
    message: { jsonrpc: "2.0"; id: string | number | null } & ({ result: object } | { error: object }),
  ): void {
    this.write(message).catch((err) => this.onerror?.(err));
  }
}
