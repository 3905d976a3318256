/**
 * The 2026-07-28 era's requests, answered beside the SDK's 2025-11-25 server (which never sees
 * them): `server/discover`, stateless tools/resources requests (the client's identity and
 * capabilities read from each request's `_meta`), `subscriptions/listen`, and the tasks extension
 * (`tasks/get`, `tasks/update`, `tasks/cancel`). Tool calls go through the same call-tool.ts as
 * the old era, so an inline result is the same bytes plus `resultType: "complete"`.
 *
 * Why in front of the SDK rather than on its v2 packages: docs/tasks.md.
 */
import { toAppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import type { HostEvent, SessionHost } from "../../api/host.ts";
import { clip } from "../../util/quote.ts";
import { VERSION } from "../../version.ts";
import { callTool, preloadToolDefs, runsAsTask } from "../call-tool.ts";
import { forwardedEnv } from "../../host/daemon-host.ts";
import { type ClientProfile, clientProfile, type ResultFormSetting } from "../client-profile.ts";
import { toolsForForm } from "../listing.ts";
import { rendersApps, toolsForAudience } from "../app-view.ts";
import { changedBy, listResources, listResourceTemplates, readResource } from "../resources.ts";
import { INSTRUCTIONS } from "../server.ts";
import type { ToolContext } from "../tool.ts";
import type { TaskSettings } from "../tasks/settings.ts";
import { RetryQuestions } from "./retry-questions.ts";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  isObject,
  type JsonObject,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  METHOD_NOT_FOUND,
  requestMeta,
  type RequestMeta,
  SUPPORTED_NEW_ERA_VERSIONS,
  TASKS_EXTENSION,
} from "./protocol.ts";

const log = logger("mcp-2026");

/**
 * Answers may be cached by the client for this long. 0: ptyhub's lists change with its sessions
 * (resources) and its build (tools), and a stale tool list costs more than asking again.
 */
const CACHE_TTL_MS = 0;
/** The answers depend on who asks (read cursors, tasks): never shared between users. */
const CACHE_SCOPE = "private";
export type RequestId = string | number;
export interface NewEraRequest {
  id: RequestId;
  method: string;
  params?: unknown;
}

/** Where answers and notifications go (the transport's send). */
export type Outgoing = (message: JsonObject) => void;

export interface NewEraOptions {
  host: SessionHost;
  /** The reader id for a client, from the clientInfo its request carries. */
  clientId: (info: RequestMeta["clientInfo"]) => string;
  resultForm?: ResultFormSetting;
  tasks: TaskSettings;
  /**
   * How long ptyhub's one-time secret page lives, for clients that offer URL-mode elicitation.
   * Absent: password prompts are asked in forms only (a client that may not share this loopback).
   */
  secretPageTtlMs?: number;
  /**
   * Task id → session, shared by every NewEraServer of the process (HTTP makes one per request);
   * absent: one of its own.
   */
  taskSessions?: Map<string, string | undefined>;
  /**
   * Plain calls suspended at a question until the client's retry (MRTR), shared by every
   * NewEraServer of the process like taskSessions; absent: one of its own.
   */
  questions?: RetryQuestions;
}

/** A JSON-RPC error raised by a handler. */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface Listener {
  notifications: { toolsListChanged: boolean; resourcesListChanged: boolean; resourceSubscriptions: string[] };
}

export class NewEraServer {
  /** The session of each task started through this process: its host API calls are routed by it. */
  private readonly taskSessions: Map<string, string | undefined>;
  private readonly questions: RetryQuestions;
  /** Open subscriptions/listen requests, by their request id. */
  private readonly listeners = new Map<RequestId, Listener>();
  /** Calls in flight, so notifications/cancelled can stop them. */
  private readonly inFlight = new Map<RequestId, AbortController>();
  /** The host-event subscription, made with the first listen. */
  private offEvents: (() => void) | null = null;

  constructor(
    private readonly opts: NewEraOptions,
    private readonly send: Outgoing,
  ) {
    this.taskSessions = opts.taskSessions ?? new Map();
    this.questions = opts.questions ?? questionsFor(opts);
  }

  /** Handles one request; the answer (or error) is sent when ready. */
  handle(request: NewEraRequest): void {
    const controller = new AbortController();
    this.inFlight.set(request.id, controller);
    void this.dispatch(request, controller.signal)
      .then((result) => {
        if (result !== HELD) this.send({ jsonrpc: "2.0", id: request.id, result });
      })
      .catch((err: unknown) => this.send({ jsonrpc: "2.0", id: request.id, error: rpcError(err) }))
      .finally(() => this.inFlight.delete(request.id));
  }

  /** notifications/cancelled for one of our requests: stops the call, or ends the listen. */
  cancelled(id: RequestId): boolean {
    this.listeners.delete(id);
    const c = this.inFlight.get(id);
    c?.abort();
    return c !== undefined;
  }

  /** Whether a request id is one this server is answering (for routing cancellations). */
  owns(id: RequestId): boolean {
    return this.inFlight.has(id) || this.listeners.has(id);
  }

  /** Ends open listens with their (empty) result, so a closing transport owes no answer. */
  close(): void {
    this.offEvents?.();
    this.offEvents = null;
    const open = [...this.listeners.keys()];
    this.listeners.clear();
    for (const id of open) this.send({ jsonrpc: "2.0", id, result: { resultType: "complete" } });
  }

  private async dispatch(request: NewEraRequest, signal: AbortSignal): Promise<JsonObject | typeof HELD> {
    const meta = requestMeta(request.params);
    if (meta.protocolVersion !== null && !SUPPORTED_NEW_ERA_VERSIONS.includes(meta.protocolVersion))
      throw new RpcError(INVALID_PARAMS, `unsupported protocol version ${clip(meta.protocolVersion, 40)}`, {
        supported: SUPPORTED_NEW_ERA_VERSIONS,
      });
    const params = isObject(request.params) ? request.params : {};
    switch (request.method) {
      case "server/discover":
        return this.discover();
      case "ping":
        return complete({});
      case "tools/list": {
        const listed = await toolsForForm(clientProfile(meta.clientInfo, this.opts.resultForm).form);
        const tools = toolsForAudience(listed, rendersApps(meta.capabilities));
        preloadToolDefs();
        return complete({ tools, ttlMs: CACHE_TTL_MS, cacheScope: CACHE_SCOPE });
      }
      case "tools/call":
        return this.callTool(params, meta, signal);
      case "resources/list":
        return complete({ ...(await listResources(this.opts.host)), ttlMs: CACHE_TTL_MS, cacheScope: CACHE_SCOPE });
      case "resources/templates/list":
        return complete({ ...listResourceTemplates(), ttlMs: CACHE_TTL_MS, cacheScope: CACHE_SCOPE });
      case "resources/read":
        return complete(await readResource(this.opts.host, stringParam(params, "uri")));
      case "subscriptions/listen":
        return this.listen(request.id, params);
      case "tasks/get": {
        const ref = this.taskRef(params);
        const r = await this.opts.host.call("taskGet", ref, this.hostCtx(meta));
        if (r.found !== true || !isObject(r.snapshot))
          throw new RpcError(INVALID_PARAMS, `unknown task ${clip(ref.taskId, 80)}`);
        return complete(r.snapshot);
      }
      case "tasks/update": {
        const inputResponses = isObject(params.inputResponses) ? params.inputResponses : {};
        await this.opts.host.call("taskUpdate", { ...this.taskRef(params), inputResponses }, this.hostCtx(meta));
        return complete({});
      }
      case "tasks/cancel": {
        const r = await this.opts.host.call("taskCancel", this.taskRef(params), this.hostCtx(meta));
        return complete(isObject(r.snapshot) ? r.snapshot : {});
      }
      default:
        throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${clip(request.method, 80)}`);
    }
  }

  private discover(): JsonObject {
    return complete({
      supportedVersions: SUPPORTED_NEW_ERA_VERSIONS,
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        extensions: { [TASKS_EXTENSION]: {} },
      },
      instructions: INSTRUCTIONS,
      _meta: { [META_SERVER_INFO]: { name: "ptyhub", title: "ptyhub", version: VERSION } },
      ttlMs: CACHE_TTL_MS,
      cacheScope: CACHE_SCOPE,
    });
  }

  private async callTool(params: JsonObject, meta: RequestMeta, signal: AbortSignal): Promise<JsonObject> {
    const name = stringParam(params, "name");
    const client = clientProfile(meta.clientInfo, this.opts.resultForm);
    // No elicit: the new era has no server-initiated requests. A plain call asks by answering
    // input_required and hearing the answer in the client's retry (retry-questions.ts); a task asks
    // through its own input_required.
    const ctx: ToolContext = { host: this.opts.host, clientId: this.opts.clientId(meta.clientInfo), signal };
    // The view's own tools answer no questions here: this era keeps no store of them.
    if (rendersApps(meta.capabilities)) ctx.appView = { questions: null };
    const elicitation = meta.capabilities.elicitation;
    const asTask = meta.tasks && (await runsAsTask(name));
    // A retry answers a question whichever call asked it; a call that may ask is run so that it can.
    if (typeof params.requestState === "string" || (!asTask && isObject(elicitation)))
      return this.askingCall(name, params, ctx, client, isObject(elicitation) && isObject(elicitation.url), signal);
    if (!asTask) return complete({ ...(await callTool(name, params.arguments, ctx, client)) });
    // The host that has the session runs the call and keeps the task (the daemon for persistent sessions).
    const session =
      typeof params.arguments === "object" && params.arguments !== null
        ? Reflect.get(params.arguments, "session")
        : undefined;
    const args = isObject(params.arguments) ? params.arguments : {};
    const started = await this.opts.host.call(
      "taskStart",
      {
        ...(typeof session === "string" ? { session } : {}),
        tool: name,
        args,
        client,
        settings: this.taskSettings(meta),
        defaults: { cwd: process.cwd(), env: forwardedEnv() },
      },
      ctx,
    );
    if (started.kind === "task" && isObject(started.snapshot)) {
      const id = started.snapshot.taskId;
      if (typeof id === "string") this.taskSessions.set(id, typeof session === "string" ? session : undefined);
      return { resultType: "task", ...started.snapshot };
    }
    return complete(isObject(started.result) ? started.result : {});
  }

  /** A plain call whose questions go to the human the era's way: input_required, then the client's retry. */
  private async askingCall(
    name: string,
    params: JsonObject,
    ctx: ToolContext,
    client: ClientProfile,
    url: boolean,
    signal: AbortSignal,
  ): Promise<JsonObject> {
    const state = params.requestState;
    const asker = { clientName: nameOf(client), url };
    const round =
      typeof state === "string"
        ? await this.questions.retry(
            state,
            { tool: name, rawArgs: params.arguments },
            params.inputResponses,
            ctx,
            client,
            signal,
          )
        : await this.questions.start({ tool: name, rawArgs: params.arguments }, ctx, client, asker, signal);
    return round.kind === "complete"
      ? complete({ ...round.result })
      : { resultType: "input_required", ...round.result };
  }

  /** The task settings for one request: with the secret page when its client can send the human there. */
  private taskSettings(meta: RequestMeta): TaskSettings {
    const elicitation = meta.capabilities.elicitation;
    const url = isObject(elicitation) && isObject(elicitation.url);
    const ttl = this.opts.secretPageTtlMs;
    return url && ttl !== undefined ? { ...this.opts.tasks, secretPageTtlMs: ttl } : this.opts.tasks;
  }

  /** A task's id and, if this server started it, its session (for routing); else the default host (the daemon). */
  private taskRef(params: JsonObject): { taskId: string; session?: string } {
    const taskId = stringParam(params, "taskId");
    const session = this.taskSessions.get(taskId);
    return session === undefined ? { taskId } : { taskId, session };
  }

  private hostCtx(meta: RequestMeta): { clientId: string } {
    return { clientId: this.opts.clientId(meta.clientInfo) };
  }

  private listen(id: RequestId, params: JsonObject): typeof HELD {
    const asked = isObject(params.notifications) ? params.notifications : {};
    const subs = Array.isArray(asked.resourceSubscriptions)
      ? asked.resourceSubscriptions.filter((u): u is string => typeof u === "string")
      : [];
    const notifications = {
      toolsListChanged: asked.toolsListChanged === true,
      resourcesListChanged: asked.resourcesListChanged === true,
      resourceSubscriptions: subs,
    };
    this.listeners.set(id, { notifications });
    this.offEvents ??= this.opts.host.onSessionEvent?.((e) => this.onHostEvent(e)) ?? (() => {});
    this.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [META_SUBSCRIPTION_ID]: id }, notifications },
    });
    return HELD;
  }

  private onHostEvent(event: HostEvent): void {
    const { uris, listChanged } = changedBy(event);
    for (const [id, { notifications }] of this.listeners) {
      const _meta = { [META_SUBSCRIPTION_ID]: id };
      for (const uri of uris)
        if (notifications.resourceSubscriptions.includes(uri))
          this.send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri, _meta } });
      if (listChanged && notifications.resourcesListChanged)
        this.send({ jsonrpc: "2.0", method: "notifications/resources/list_changed", params: { _meta } });
    }
  }
}

/** A listen is answered only when it ends. */
const HELD = Symbol("held open");

/** A process's store of suspended calls, with the era's settings. */
export function questionsFor(opts: Pick<NewEraOptions, "tasks" | "secretPageTtlMs">): RetryQuestions {
  return new RetryQuestions({ ttlMs: opts.tasks.ttlMs, secretPageTtlMs: opts.secretPageTtlMs });
}

/** How messages name the client. */
function nameOf(client: ClientProfile): string {
  return client.label ?? client.name;
}

function complete(result: JsonObject): JsonObject {
  return { resultType: "complete", ...result };
}

function stringParam(params: JsonObject, key: string): string {
  const v = params[key];
  if (typeof v !== "string" || v.length === 0) throw new RpcError(INVALID_PARAMS, `params.${key} must be a string`);
  return v;
}

function rpcError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RpcError) return { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) };
  const app = toAppError(err);
  if (app.code === "INTERNAL") {
    log.error("new-era request failed", err);
    return { code: INTERNAL_ERROR, message: "Internal error" };
  }
  const payload = app.toPayload();
  return { code: INVALID_PARAMS, message: payload.message, data: { code: payload.code, hint: payload.hint } };
}
