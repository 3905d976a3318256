/**
 * What the daemon keeps per connected client: its hello, its calls under way, the results it has
 * not acknowledged, the elicitations it was asked, the session it is attached to, its key proof.
 */
import type { HumanVia } from "../api/fields.ts";
import type { Conn } from "../daemon-client/conn.ts";
import type { ElicitAnswer, HelloFrame } from "../daemon-client/protocol.ts";
import { AppError } from "../api/errors.ts";
import type { DeliveryTicket } from "../session/delivery.ts";
import type { Session } from "../session/session.ts";

export interface Attachment {
  session: Session;
  /** Where the attached human types from (the audit trail names it). */
  via: HumanVia;
  detach(): void;
}

/**
 * Results awaiting their acknowledgement, per client. A client that never acknowledges (an older
 * ptyhub of the same protocol) must not grow the map without end: past this many, the oldest are
 * forgotten, and what they moved comes again to the next reader, labelled (at-least-once).
 */
const MAX_UNACKED_RESULTS = 256;

export function remember(unacked: Map<number, DeliveryTicket>, id: number, ticket: DeliveryTicket): void {
  unacked.set(id, ticket);
  for (const oldest of unacked.keys()) {
    if (unacked.size <= MAX_UNACKED_RESULTS) break;
    unacked.delete(oldest);
  }
}

export interface Client {
  serial: number;
  conn: Conn;
  hello: HelloFrame | null;
  calls: Map<number, AbortController>;
  /** Answered calls that moved a read cursor, until the client acknowledges their results. */
  unacked: Map<number, DeliveryTicket>;
  elicits: Map<number, { call: number; resolve(a: ElicitAnswer): void; reject(e: unknown): void }>;
  attachment: Attachment | null;
  /** Ends this client's subscription to session events. */
  unsubscribeEvents: (() => void) | null;
  /** Where the client must prove the user's key (a named pipe): its state, until it has. */
  keyCheck: KeyCheck | null;
}

/** A client's proof of the user's key (pipe-auth.ts), under way. */
export interface KeyCheck {
  key: Buffer;
  /** Our challenge, sent in our hello. */
  challenge: string;
  /** The client's, from its hello; then our proof has been sent. */
  clientChallenge: string | null;
  proven: boolean;
}

/** Sends the client a fatal error and hangs up on it. */
export function sendFatal(c: Client, error: AppError): void {
  c.conn.send({ type: "fatal", error: error.toPayload() });
  c.conn.hangUp();
}

/** What the daemon asks a client's human to answer, for the call `call` under way. */
export interface ClientQuestion {
  call: number;
  signal: AbortSignal;
  message: string;
  schema: Record<string, unknown>;
  secret: boolean | undefined;
}

/**
 * Asks the client to elicit an answer from its human (SSH passwords, guard questions); `id` is the
 * daemon's number for the question. Rejects when the call is cancelled or the client goes away.
 */
export function askClient(c: Client, id: number, q: ClientQuestion): Promise<ElicitAnswer> {
  const { call, signal, message, schema, secret } = q;
  if (c.conn.closed) return Promise.reject(new AppError("ELICITATION_UNSUPPORTED", "the client went away", ""));
  return new Promise<ElicitAnswer>((resolve, reject) => {
    const onAbort = () => {
      if (c.elicits.delete(id)) reject(new AppError("INVALID_ARGUMENT", "the request was cancelled", ""));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    c.elicits.set(id, {
      call,
      resolve: (a) => {
        signal.removeEventListener("abort", onAbort);
        resolve(a);
      },
      reject: (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    });
    c.conn.send({ type: "elicit", id, call, message, schema, ...(secret ? { secret } : {}) });
  });
}
