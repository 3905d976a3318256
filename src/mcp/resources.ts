/**
 * MCP resources: `ptyhub://sessions` (the list, JSON) and, per session, `…/screen` (the visible
 * screen) and `…/history` (the last lines). All readable and subscribable: a subscriber is told
 * when a session's command finishes or it exits (and the list when sessions come and go).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../api/errors.ts";
import type { HostEvent, SessionHost } from "../api/host.ts";
import { logger } from "../log.ts";
import { quote } from "../util/quote.ts";
import { readTerminalView, TERMINAL_VIEW_RESOURCE } from "./app-view.ts";

const log = logger("resources");

const LIST_URI = "ptyhub://sessions";
const SESSION_URI = /^ptyhub:\/\/sessions\/([A-Za-z0-9._-]{1,64})\/(screen|history)$/;
/** Resource reads use their own reader id, so they never move an agent's read cursor. */
const RESOURCE_READER = "mcp-resources";
/** How much a history resource shows (its tail). */
const HISTORY_RESOURCE_LINES = 500;
const RESOURCE_TOKENS = 50_000;
/** The resource templates whose `{session}` argument completes to session names. */
const SESSION_TEMPLATES = new Set([`${LIST_URI}/{session}/screen`, `${LIST_URI}/{session}/history`]);
/** The most values one completion answer may carry (the MCP spec's limit). */
const MAX_COMPLETIONS = 100;

/** The resources/list answer: the list, and a screen and history per session. */
export async function listResources(host: SessionHost) {
  const sessions = await host.call("list", {}, { clientId: RESOURCE_READER });
  return {
    resources: [
      { uri: LIST_URI, name: "sessions", title: "Terminal sessions", mimeType: "application/json" },
      ...sessions.flatMap((s) => [
        {
          uri: `${LIST_URI}/${s.session}/screen`,
          name: `${s.session} screen`,
          title: `Screen of ${s.session} (${s.target})`,
          mimeType: "text/plain",
        },
        {
          uri: `${LIST_URI}/${s.session}/history`,
          name: `${s.session} history`,
          title: `Last lines of ${s.session} (${s.target})`,
          mimeType: "text/plain",
        },
      ]),
    ],
  };
}

/** The resources/templates/list answer. */
export function listResourceTemplates() {
  return {
    resourceTemplates: [
      {
        uriTemplate: `${LIST_URI}/{session}/screen`,
        name: "session screen",
        title: "The visible screen of a session",
        mimeType: "text/plain",
      },
      {
        uriTemplate: `${LIST_URI}/{session}/history`,
        name: "session history",
        title: "The last lines of a session",
        mimeType: "text/plain",
      },
    ],
  };
}

/** The resources/read answer; an unknown URI is INVALID_ARGUMENT. */
export async function readResource(host: SessionHost, uri: string) {
  const ctx = { clientId: RESOURCE_READER };
  if (uri === LIST_URI) {
    const sessions = await host.call("list", {}, ctx);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ sessions }, null, 2) }] };
  }
  const m = SESSION_URI.exec(uri);
  if (!m)
    throw new AppError(
      "INVALID_ARGUMENT",
      `unknown resource ${quote(uri)}`,
      `Resources: ${LIST_URI}, ${LIST_URI}/{session}/screen, ${LIST_URI}/{session}/history.`,
    );
  const [, session, kind] = m;
  const r =
    kind === "screen"
      ? await host.call("read", { session: session!, mode: "screen", max_tokens: RESOURCE_TOKENS }, ctx)
      : await host.call(
          "read",
          { session: session!, mode: "history", from: -HISTORY_RESOURCE_LINES, max_tokens: RESOURCE_TOKENS },
          ctx,
        );
  return { contents: [{ uri, mimeType: "text/plain", text: r.output }] };
}

/** The resource URIs a host event changes, and whether it changes the list of resources. */
export function changedBy(event: HostEvent): { uris: string[]; listChanged: boolean } {
  return {
    uris: [LIST_URI, `${LIST_URI}/${event.session}/screen`, `${LIST_URI}/${event.session}/history`],
    listChanged: event.kind === "opened" || event.kind === "closed",
  };
}

/** Returns the unsubscription from the host's events, for when this server closes. */
/** `rendersApps`: whether the client shows MCP Apps views, which adds the terminal view (app-view.ts). */
export function registerResources(
  server: Server,
  host: SessionHost,
  rendersApps: () => boolean = () => false,
): () => void {
  const subscribed = new Set<string>();

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const listed = await listResources(host);
    return rendersApps() ? { resources: [...listed.resources, TERMINAL_VIEW_RESOURCE] } : listed;
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => listResourceTemplates());
  server.setRequestHandler(
    ReadResourceRequestSchema,
    async (request) => readTerminalView(request.params.uri) ?? readResource(host, request.params.uri),
  );

  // completion/complete: the session names that start with what was typed, for the templates' {session}.
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    if (ref.type !== "ref/resource" || !SESSION_TEMPLATES.has(ref.uri) || argument.name !== "session") {
      return { completion: { values: [] } };
    }
    const sessions = await host.call("list", {}, { clientId: RESOURCE_READER });
    const matching = sessions.map((s) => s.session).filter((name) => name.startsWith(argument.value));
    return {
      completion: {
        values: matching.slice(0, MAX_COMPLETIONS),
        total: matching.length,
        hasMore: matching.length > MAX_COMPLETIONS,
      },
    };
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  const notify = (uri: string) => {
    if (subscribed.has(uri)) server.sendResourceUpdated({ uri }).catch((err) => log.debug(`notify ${uri} failed`, err));
  };
  const off = host.onSessionEvent?.((event: HostEvent) => {
    const { uris, listChanged } = changedBy(event);
    for (const uri of uris) notify(uri);
    if (listChanged) server.sendResourceListChanged().catch(() => undefined);
  });
  return off ?? (() => {});
}
