/**
 * Sits between a message transport and the SDK's 2025-11-25 server, and hands the 2026-07-28
 * era's requests (protocol.ts says which) to the NewEraServer instead. Everything else, initialize
 * and the requests that follow it, passes to the SDK untouched, so old-era clients see the same
 * bytes as without it.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isNewEraRequest, isObject, type JsonObject } from "./protocol.ts";
import type { NewEraServer } from "./new-era-server.ts";

/** A transport the router can wrap: one that can also wait for its last answers (see stdio-transport.ts). */
export interface SettlingTransport extends Transport {
  settled(ms: number): Promise<void>;
}

export class EraRouter implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly newEra: NewEraServer;
  /** Whether a 2025-11-25 client has initialized (only then is the SDK server talking to someone). */
  private initialized = false;

  constructor(
    private readonly inner: SettlingTransport,
    makeNewEra: (send: (message: JsonObject) => void) => NewEraServer,
  ) {
    this.newEra = makeNewEra((message) => {
      if (!isJsonRpcMessage(message)) return;
      this.inner.send(message).catch((err: Error) => this.onerror?.(err));
    });
  }

  async start(): Promise<void> {
    this.inner.onmessage = (m) => this.route(m);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // The SDK server's own notifications (resource list changes) are for 2025-11-25 clients only:
    // a 2026-07-28 client gets those it listens for, tagged with its subscription, from newEra.
    if (!this.initialized && "method" in message && !("id" in message)) return Promise.resolve();
    return this.inner.send(message);
  }

  /** Ends held-open listens (their answer is owed), then waits for the last answers as the transport does. */
  settled(ms: number): Promise<void> {
    this.newEra.close();
    return this.inner.settled(ms);
  }

  async close(): Promise<void> {
    this.newEra.close();
    await this.inner.close();
  }

  private route(message: JSONRPCMessage): void {
    if (isNewEraRequest(message)) {
      this.newEra.handle(message);
      return;
    }
    if ("method" in message && message.method === "initialize") this.initialized = true;
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = message.params?.requestId;
      if ((typeof id === "string" || typeof id === "number") && this.newEra.owns(id)) {
        this.newEra.cancelled(id);
        return;
      }
    }
    this.onmessage?.(message);
  }
}

/** The new-era server's messages are built here as plain objects: checked for the JSON-RPC shape. */
function isJsonRpcMessage(m: JsonObject): m is JsonObject & JSONRPCMessage {
  if (m.jsonrpc !== "2.0") return false;
  if (typeof m.method === "string") return m.params === undefined || isObject(m.params);
  return (typeof m.id === "string" || typeof m.id === "number") && (isObject(m.result) || isObject(m.error));
}
