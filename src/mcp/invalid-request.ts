/**
 * The answer to a message that is JSON but cannot be served: a batch (`[...]`, which MCP removed
 * in 2025-06-18 and this server does not run), an empty batch (`[]`), a request whose `id` is not
 * a string or number (an object, a boolean, null), anything else that is not JSON-RPC 2.0. Left
 * unanswered, a client waiting on such a message hangs (issue #21), so each gets a JSON-RPC
 * "Invalid Request" error, carrying the message's id when it is usable and null otherwise. Shared
 * by the stdio and HTTP transports, so both answer alike.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** JSON-RPC 2.0: the JSON sent is not a valid Request object. */
export const INVALID_REQUEST = -32600;

export interface InvalidRequestReply {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

export type Classified =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "invalid"; why: string; reply: InvalidRequestReply | InvalidRequestReply[] };

const BATCH_REFUSED =
  "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message at a time";
const EMPTY_BATCH = "Invalid Request: an empty batch";
const BAD_ID = "Invalid Request: the id must be a string or a number";
const NOT_JSON_RPC = "Invalid Request: not a JSON-RPC 2.0 message";

/** The message's id, when it is one a reply can carry. */
export function usableId(json: unknown): string | number | null {
  if (json === null || typeof json !== "object" || Array.isArray(json) || !("id" in json)) return null;
  const id = json.id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function invalid(id: string | number | null, message: string): InvalidRequestReply {
  return { jsonrpc: "2.0", id, error: { code: INVALID_REQUEST, message } };
}

function single(json: unknown): Classified {
  const parsed = JSONRPCMessageSchema.safeParse(json);
  if (parsed.success) return { kind: "message", message: parsed.data };
  const hasId = json !== null && typeof json === "object" && "id" in json;
  const id = usableId(json);
  const message = hasId && id === null ? BAD_ID : NOT_JSON_RPC;
  return { kind: "invalid", why: message, reply: invalid(id, message) };
}

/** Sorts parsed JSON into a message to serve, or the error reply(ies) it gets instead. */
export function classifyMessage(json: unknown): Classified {
  if (!Array.isArray(json)) return single(json);
  if (json.length === 0) return { kind: "invalid", why: EMPTY_BATCH, reply: invalid(null, EMPTY_BATCH) };
  // A batch is answered with a batch: one error per member, so every id the client waits on is answered.
  return { kind: "invalid", why: BATCH_REFUSED, reply: json.map((member) => invalid(usableId(member), BATCH_REFUSED)) };
}
