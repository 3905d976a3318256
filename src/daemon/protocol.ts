/**
 * The daemon's wire protocol: newline-delimited JSON frames over a Unix socket. JSON.stringify
 * never emits a raw newline, so "\n" delimits frames unambiguously; binary terminal bytes travel
 * base64-encoded. Each side's first frame is `hello` with the protocol number, and the hello's
 * shape ({type, protocol, version, pid}) is frozen forever, so any two ptyhub versions can at least
 * tell each other apart (and `ptyhub daemon --stop` can stop an incompatible daemon by its pid).
 *
 *   client → daemon   hello · call {id, method, params, ctx} · cancel {id} · elicit_result {id}
 *                     input {data} · resize {cols, rows} · detach          (attach streams)
 *   daemon → client   hello · result {id} · error {id, error} · fatal {error} · elicit {id, call}
 *                     event {event}                        (after a `subscribeEvents` call)
 *                     output {data} · exit {exit_code, reason}             (attach streams)
 */
import type { ErrorPayload } from "../errors.ts";
import type { HostEvent } from "../session/host.ts";

/** Bump on any incompatible change to frames or methods. */
export const PROTOCOL = 1;

/**
 * Largest frame accepted. Results are bounded by the tools' token budgets (~tens of KB), and the
 * biggest legitimate frames are attach replays of a full screen plus scrollback; 64 MiB is far
 * above both and still stops a runaway peer from exhausting memory.
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export interface HelloFrame {
  type: "hello";
  protocol: number;
  version: string;
  pid: number;
  /** What the peer is: "daemon", or the client's kind ("mcp", "cli", "attach"). */
  role: string;
}

export interface CallCtx {
  clientId: string;
  /** Whether the client can answer `elicit` frames for this call. */
  elicit: boolean;
}

export interface CallFrame {
  type: "call";
  id: number;
  method: string;
  params: unknown;
  ctx: CallCtx;
}

export interface CancelFrame {
  type: "cancel";
  id: number;
}

export interface ResultFrame {
  type: "result";
  id: number;
  result: unknown;
}

export interface ErrorFrame {
  type: "error";
  id: number;
  error: ErrorPayload;
}

/** A connection-level failure (version mismatch, refused peer): the sender closes right after. */
export interface FatalFrame {
  type: "fatal";
  error: ErrorPayload;
}

export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** Daemon → client: a running call (`call`) asks the human something through the client. */
export interface ElicitFrame {
  type: "elicit";
  id: number;
  call: number;
  message: string;
  schema: Record<string, unknown>;
}

export interface ElicitResultFrame {
  type: "elicit_result";
  id: number;
  result?: ElicitAnswer;
  error?: ErrorPayload;
}

export interface InputFrame {
  type: "input";
  data: string;
}

export interface ResizeFrame {
  type: "resize";
  cols: number;
  rows: number;
}

export interface DetachFrame {
  type: "detach";
}

export interface OutputFrame {
  type: "output";
  data: string;
}

export interface ExitFrame {
  type: "exit";
  exit_code: number | null;
  reason: string;
}

/** A session lifecycle event, for MCP resource subscriptions of the client. */
export interface EventFrame {
  type: "event";
  event: HostEvent;
}

export type ClientFrame = HelloFrame | CallFrame | CancelFrame | ElicitResultFrame | InputFrame | ResizeFrame | DetachFrame;
export type DaemonFrame = HelloFrame | ResultFrame | ErrorFrame | FatalFrame | ElicitFrame | EventFrame | OutputFrame | ExitFrame;
export type Frame = ClientFrame | DaemonFrame;

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
