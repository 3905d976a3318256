/**
 * The MCP 2026-07-28 protocol era, as far as ptyhub serves it: no initialize, every request
 * carries the protocol version, client info and capabilities in its `_meta`; `server/discover`
 * says what the server offers; results carry `resultType`. Wire details as Claude Code 2.1.330
 * speaks them: /work/shared/notes (measured) and the spec's docs/specification/2026-07-28.
 */

export const NEW_ERA_VERSION = "2026-07-28";
export const SUPPORTED_NEW_ERA_VERSIONS: readonly string[] = [NEW_ERA_VERSION];

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** The tasks extension (SEP-2663): a client declaring it accepts `resultType: "task"`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Methods only the new era has: they are ours whatever their `_meta` says. */
const NEW_ERA_METHODS = new Set([
  "server/discover",
  "subscriptions/listen",
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
  "tasks/list",
]);

/** JSON-RPC error codes used by the new-era answers. */
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What a new-era request says about its client, read from its `_meta`. */
export interface RequestMeta {
  protocolVersion: string | null;
  clientInfo: { name: string; version?: string } | undefined;
  capabilities: JsonObject;
  /** The client accepts a task for this request (it declared the tasks extension). */
  tasks: boolean;
}

export function requestMeta(params: unknown): RequestMeta {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
  const version = meta[META_PROTOCOL_VERSION];
  const info = meta[META_CLIENT_INFO];
  const caps = isObject(meta[META_CLIENT_CAPABILITIES]) ? meta[META_CLIENT_CAPABILITIES] : {};
  const extensions = isObject(caps.extensions) ? caps.extensions : {};
  return {
    protocolVersion: typeof version === "string" ? version : null,
    clientInfo:
      isObject(info) && typeof info.name === "string"
        ? { name: info.name, ...(typeof info.version === "string" ? { version: info.version } : {}) }
        : undefined,
    capabilities: caps,
    tasks: TASKS_EXTENSION in extensions,
  };
}

/**
 * Whether a message from the client belongs to the new era: a new-era method, or a request whose
 * `_meta` names a protocol version (2025-11-25 requests never carry one). Everything else goes to
 * the SDK's 2025-11-25 server, untouched.
 */
export function isNewEraRequest(
  message: unknown,
): message is { id: string | number; method: string; params?: unknown } {
  if (!isObject(message) || typeof message.method !== "string") return false;
  if (typeof message.id !== "string" && typeof message.id !== "number") return false;
  if (NEW_ERA_METHODS.has(message.method)) return true;
  return requestMeta(message.params).protocolVersion !== null;
}
