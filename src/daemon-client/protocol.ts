/**
 * The daemon's wire protocol: newline-delimited JSON frames over a Unix socket. JSON.stringify
 * never emits a raw newline, so "\n" delimits frames unambiguously; binary terminal bytes travel
 * base64-encoded. Each side's first frame is `hello` with the protocol number, and the hello's
 * shape ({type, protocol, version, pid}) is frozen forever, so any two ptyhub versions can at least
 * tell each other apart (and `ptyhub daemon --stop` can stop an incompatible daemon by its pid).
 *
 *   client → daemon   hello · auth {proof}      (named pipes: the key's proof, pipe-auth.ts)
 *                     call {id, method, params, ctx} · cancel {id} · elicit_result {id}
 *                     ack {id}                   (a result marked `ack` reached the client's client)
 *                     input {data} · resize {cols, rows} · detach          (attach streams)
 *   daemon → client   hello · auth {proof}      (named pipes)
 *                     result {id, ack?} · error {id, error} · fatal {error} · elicit {id, call}
 *                     event {event}                        (after a `subscribeEvents` call)
 *                     output {data} · exit {exit_code, reason}             (attach streams)
 */
import { z } from "zod";
import { AppError, isErrorCode } from "../api/errors.ts";

/** Bump on any incompatible change to frames or methods. */
export const PROTOCOL = 1;

/**
 * Largest frame accepted. Results are bounded by the tools' token budgets (~tens of KB), and the
 * biggest legitimate frames are attach replays of a full screen plus scrollback; 64 MiB is far
 * above both and still stops a runaway peer from exhausting memory.
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/*
 * Every frame has a schema, and each side checks what it receives against it before acting on it
 * (parseClientFrame / parseDaemonFrame); a call's params are checked further against the host API
 * table (src/api/table.ts). Objects are loose: a newer peer may add fields, never change them.
 */

/** An error as it crosses the socket; an unknown code (a newer peer's) is read as INTERNAL. */
/** Why a client refused a question by itself (an elicitation answer); bounded like any field a peer sends. */
const MAX_UNASKED_WHY_CHARS = 500;
/** A challenge or proof is base64 of 32 bytes (44 characters); anything far longer is not one. */
const MAX_AUTH_FIELD_CHARS = 128;

const errorPayload = z.object({ code: z.string(), message: z.string(), hint: z.string(), retryable: z.boolean() });
export type WireError = z.infer<typeof errorPayload>;

export function errorFromWire(p: WireError | undefined): AppError {
  const code = p?.code;
  if (p && isErrorCode(code)) return new AppError(code, p.message, p.hint, p.retryable);
  return new AppError("INTERNAL", p?.message ?? "the peer sent a malformed error", "This is a bug in ptyhub.");
}

const helloFrame = z.object({
  type: z.literal("hello"),
  protocol: z.number(),
  version: z.string(),
  pid: z.number(),
  /** What the peer is: "daemon", or the client's kind ("mcp", "cli", "attach"). */
  role: z.string(),
  /** Over a named pipe: the nonce the other side proves the user's key against (pipe-auth.ts). */
  challenge: z.string().max(MAX_AUTH_FIELD_CHARS).optional(),
});
export type HelloFrame = z.infer<typeof helloFrame>;

/** Over a named pipe, after both hellos: the sender's proof that it holds the user's key. */
const authFrame = z.object({ type: z.literal("auth"), proof: z.string().max(MAX_AUTH_FIELD_CHARS) });

const callCtx = z.object({
  clientId: z.string(),
  /** Whether the client can answer `elicit` frames for this call. */
  elicit: z.boolean(),
});
export type CallCtx = z.infer<typeof callCtx>;

const callFrame = z.object({
  type: z.literal("call"),
  id: z.number().int(),
  method: z.string().max(64),
  params: z.unknown(),
  ctx: callCtx,
});
export type CallFrame = z.infer<typeof callFrame>;

const cancelFrame = z.object({ type: z.literal("cancel"), id: z.number().int() });
/**
 * `ack`: the call moved a read cursor, which the daemon commits only once the client confirms the
 * result was delivered (src/session/delivery.ts), with an `ack` frame of the same id.
 */
const resultFrame = z.object({
  type: z.literal("result"),
  id: z.number().int(),
  result: z.unknown(),
  ack: z.boolean().optional(),
});
const ackFrame = z.object({ type: z.literal("ack"), id: z.number().int() });
const errorFrame = z.object({ type: z.literal("error"), id: z.number().int(), error: errorPayload });
/** A connection-level failure (version mismatch, refused peer): the sender closes right after. */
const fatalFrame = z.object({ type: z.literal("fatal"), error: errorPayload });

const elicitAnswer = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).optional(),
  /** The client refused without asking anyone (ElicitResult.unaskedWhy). */
  unaskedWhy: z.string().max(MAX_UNASKED_WHY_CHARS).optional(),
});
export type ElicitAnswer = z.infer<typeof elicitAnswer>;

/** Daemon → client: a running call (`call`) asks the human something through the client. */
const elicitFrame = z.object({
  type: z.literal("elicit"),
  id: z.number().int(),
  call: z.number().int(),
  message: z.string(),
  schema: z.record(z.string(), z.unknown()),
  /** The answer is a secret (ElicitOptions.secret): the client may ask for it on its one-time page. */
  secret: z.boolean().optional(),
});
export type ElicitFrame = z.infer<typeof elicitFrame>;

const elicitResultFrame = z.object({
  type: z.literal("elicit_result"),
  id: z.number().int(),
  result: elicitAnswer.optional(),
  error: errorPayload.optional(),
});
const inputFrame = z.object({ type: z.literal("input"), data: z.string() });
const resizeFrame = z.object({ type: z.literal("resize"), cols: z.number(), rows: z.number() });
const detachFrame = z.object({ type: z.literal("detach") });
const outputFrame = z.object({ type: z.literal("output"), data: z.string() });
const exitFrame = z.object({ type: z.literal("exit"), exit_code: z.number().int().nullable(), reason: z.string() });
export type ExitFrame = z.infer<typeof exitFrame>;

/** A session lifecycle event, for MCP resource subscriptions of the client. */
const eventFrame = z.object({
  type: z.literal("event"),
  event: z.object({ session: z.string(), kind: z.enum(["opened", "closed", "command_finished", "exited"]) }),
});

const clientFrame = z.discriminatedUnion("type", [
  helloFrame,
  authFrame,
  callFrame,
  cancelFrame,
  ackFrame,
  elicitResultFrame,
  inputFrame,
  resizeFrame,
  detachFrame,
]);
const daemonFrame = z.discriminatedUnion("type", [
  helloFrame,
  authFrame,
  resultFrame,
  errorFrame,
  fatalFrame,
  elicitFrame,
  eventFrame,
  outputFrame,
  exitFrame,
]);
export type ClientFrame = z.infer<typeof clientFrame>;
export type DaemonFrame = z.infer<typeof daemonFrame>;
export type Frame = ClientFrame | DaemonFrame;

/** A frame from a client, checked; null when it is not one (the connection is then refused). */
export function parseClientFrame(value: unknown): ClientFrame | null {
  const r = clientFrame.safeParse(value);
  return r.success ? r.data : null;
}

/** A frame from the daemon, checked; null when it is not one. */
export function parseDaemonFrame(value: unknown): DaemonFrame | null {
  const r = daemonFrame.safeParse(value);
  return r.success ? r.data : null;
}

const encoder = new TextEncoder();

export function encodeFrame(frame: Frame): Uint8Array {
  return encoder.encode(JSON.stringify(frame) + "\n");
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function fromBase64(data: string): Uint8Array {
  return new Uint8Array(Buffer.from(data, "base64"));
}

export class FrameError extends Error {}

/**
 * Splits a byte stream into frames. Robust to any chunking: a frame split over many reads, many
 * frames in one read, a multi-byte UTF-8 character split between reads (bytes are decoded only
 * once a whole frame is present). Chunks are copied, since a socket may reuse its read buffer.
 */
export class FrameDecoder {
  private parts: Uint8Array[] = [];
  private partsLen = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  /** Feeds bytes; returns the complete frames they finish. Throws FrameError on garbage. */
  push(chunk: Uint8Array): unknown[] {
    const frames: unknown[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) {
        const rest = chunk.slice(start);
        this.partsLen += rest.length;
        if (this.partsLen > this.maxBytes) throw new FrameError(`frame larger than ${this.maxBytes} bytes`);
        this.parts.push(rest);
        break;
      }
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      let bytes: Uint8Array;
      if (this.parts.length === 0) bytes = piece;
      else {
        bytes = new Uint8Array(this.partsLen + piece.length);
        let at = 0;
        for (const p of this.parts) {
          bytes.set(p, at);
          at += p.length;
        }
        bytes.set(piece, at);
        this.parts = [];
        this.partsLen = 0;
      }
      if (bytes.length > this.maxBytes) throw new FrameError(`frame larger than ${this.maxBytes} bytes`);
      if (bytes.length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(this.decoder.decode(bytes));
      } catch {
        throw new FrameError("malformed frame (not JSON)");
      }
      if (typeof value !== "object" || value === null || typeof (value as { type?: unknown }).type !== "string") {
        throw new FrameError("malformed frame (no type)");
      }
      frames.push(value);
    }
    return frames;
  }
}

/** The line `ptyhub bridge --no-start` prints on stderr when no daemon runs; the local side recognizes it. */
export const BRIDGE_NO_DAEMON_LINE = "PTYHUB-BRIDGE no-daemon";

/** A raw frame's `type`, for saying which frame was malformed (at most 40 characters). */
export function rawFrameType(raw: unknown): string {
  const type: unknown = raw !== null && typeof raw === "object" ? Reflect.get(raw, "type") : undefined;
  return String(type).slice(0, 40);
}
