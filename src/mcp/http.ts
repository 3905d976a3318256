/**
 * The Streamable HTTP transport (MCP spec 2025-06-18 and later) at /mcp, on Bun.serve with the
 * SDK's web-standard transport: POST carries requests (answered as JSON or as an SSE stream), GET
 * opens the SSE stream of server notifications (resource updates), DELETE ends the MCP session.
 *
 * Each MCP session (one connected client) gets its own MCP server and its own reader id, hence its
 * own read cursors; all of them share the app's host, so HTTP clients, stdio clients and attached
 * humans see and drive the same daemon sessions. Before any of that, a request must pass, in this
 * order: the connection cap (503), the path (404), Origin and Host (403), the bearer token (401),
 * and not coming from a program inside one of ptyhub's sessions (403, http-peer.ts). The one other
 * path, the readiness answer /healthz (http-health.ts), passes the cap and Origin/Host only.
 * A body that is JSON but no servable message (a batch, `[]`, an unusable id) is answered here
 * with a JSON-RPC Invalid Request, as over stdio (the SDK would run a batch, and answer `[]` with
 * nothing). The SDK then answers other bad requests itself: 406/415 (headers), 413 (body size),
 * 400 (malformed JSON), 404 (unknown MCP session).
 */
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { App } from "./app.ts";
import { logger } from "../log.ts";
import { createMcpServer } from "./server.ts";
import { bearerMatches } from "../config/http-token.ts";
import { HttpPeers } from "./http-peer.ts";
import { createGuard, isLoopbackHost, type RequestGuard } from "./http-guard.ts";
import { HEALTH_PATH, healthAnswer } from "./http-health.ts";
import { classifyMessage } from "./invalid-request.ts";
import { questionsFor } from "./era/new-era-server.ts";
import { answerNewEra, newEraBody } from "./era/http-new-era.ts";
import type { NewEraOptions } from "./era/new-era-server.ts";
import { createWebView } from "../web/router.ts";
import type { TerminalSocketData } from "../web/terminal-socket.ts";

const log = logger("http");

export const MCP_PATH = "/mcp";
/**
 * Bun closes a connection silent for this long. SSE streams stay busy through the SDK's keep-alive
 * comments (every SSE_KEEPALIVE_MS), so only truly dead connections are cut.
 */
const IDLE_TIMEOUT_S = 60;
const SSE_KEEPALIVE_MS = 15_000;
/**
 * At the session cap, the least recently active MCP session is dropped to admit a new client, but
 * only if it has been quiet this long: clients that vanish without DELETE would otherwise hold
 * their slots forever, while a live client is never evicted by a newcomer.
 */
const EVICTABLE_AFTER_MS = 10 * 60_000;
/**
 * A session with no open stream (no GET for notifications) and no request for this long is taken
 * for abandoned (a client gone without DELETE) and may be dropped sooner, at the cap: otherwise
 * http_max_sessions such sessions lock every new client out for EVICTABLE_AFTER_MS. A live client
 * dropped this way gets 404 on its next request and starts a new session, as the spec says.
 */
export const ABANDONED_AFTER_MS = 30_000;
/**
 * How long a request's body may take to arrive, all of it. Bun's idle timeout cuts only a silent
 * connection; a client trickling a byte now and then would hold its connection slot for ever, and
 * enough of them (http_max_connections) would lock every other client out.
 */
export const BODY_DEADLINE_MS = 10_000;

/** `req` with its body read within `ms`, or null when the body came too slowly (it is dropped). */
async function withBodyWithin(req: Request, ms: number): Promise<Request | null> {
  if (req.body === null) return req;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  const body = await Promise.race([req.arrayBuffer(), late]).finally(() => clearTimeout(timer));
  if (body === null) {
    void req.body.cancel().catch(() => undefined);
    return null;
  }
  return new Request(req.url, { method: req.method, headers: req.headers, body });
}

export interface HttpOptions {
  host: string;
  port: number;
  /** null only with the explicit --insecure-no-auth. */
  token: string | null;
  allowedOrigins: string[];
  tls: { cert: string; key: string } | null;
  maxBodyBytes: number;
  maxConnections: number;
  maxSessions: number;
}

export interface HttpServer {
  /** The endpoint, e.g. http://127.0.0.1:6420/mcp. */
  readonly url: string;
  readonly port: number;
  readonly origins: ReadonlySet<string>;
  /** A new one-time login link to the web view at `/` (src/web). */
  webLink(): string;
  /** Closes every MCP session and stops listening. */
  close(): Promise<void>;
}

interface McpSession {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastActive: number;
  /** Open SSE streams (GET) of this session: while one is open, the client is there. */
  streams: number;
}

/** The session's stream response, counted in `s.streams` until it ends or its client goes. */
function trackStream(s: McpSession, req: Request, res: Response): Response {
  if (!res.body) return res;
  s.streams++;
  let open = true;
  const ended = () => {
    if (!open) return;
    open = false;
    s.streams--;
    s.lastActive = Date.now();
  };
  req.signal.addEventListener("abort", ended, { once: true });
  const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: ended }));
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

function jsonError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers });
}

/** 403 for a request sent by a program running inside ptyhub session `inside` (http-peer.ts). */
function insideRefusal(req: Request, inside: string): Response {
  log.warn(`403 ${req.method} from a program inside session ${inside}`);
  return jsonError(
    403,
    `Forbidden: ptyhub refuses requests from programs running inside its own sessions (this one runs in ` +
      `session ${inside}); use ptyhub from a terminal of your own`,
  );
}

export function startHttpServer(app: App, opts: HttpOptions): HttpServer {
  const sessions = new Map<string, McpSession>();
  let closing = false;
  const web = createWebView({ host: app.host, token: opts.token, tls: opts.tls !== null });

  const newSession = (): McpSession => {
    let id = "";
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: opts.maxBodyBytes,
      keepAliveMs: SSE_KEEPALIVE_MS,
      onsessioninitialized: (sid) => {
        id = sid;
        sessions.set(sid, entry);
        log.info(`MCP session ${sid} opened (${server.getClientVersion()?.name ?? "unknown client"})`);
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
        log.info(`MCP session ${sid} ended by the client`);
      },
    });
    // The reader id is per MCP session: each HTTP client keeps its own read cursors.
    const server = createMcpServer({
      host: app.host,
      clientId: () => `http:${server.getClientVersion()?.name ?? "mcp"}:${id}`,
      resultForm: app.config.result_form,
      // The secret page is on this machine's loopback: offered only to clients that share it.
      secretPageTtlMs: isLoopbackHost(opts.host) ? app.config.secret_page_ttl_ms : undefined,
      humanQuestions: web.questions,
    });
    const entry: McpSession = { server, transport, lastActive: Date.now(), streams: 0 };
    return entry;
  };

  /** Room for one more MCP session: evicts a long-quiet one at the cap, else says no. */
  const makeRoom = (): boolean => {
    if (sessions.size < opts.maxSessions) return true;
    const now = Date.now();
    const quietEnough = (s: McpSession) =>
      now - s.lastActive >= (s.streams > 0 ? EVICTABLE_AFTER_MS : ABANDONED_AFTER_MS);
    let oldest: [string, McpSession] | null = null;
    for (const e of sessions) if (quietEnough(e[1]) && (!oldest || e[1].lastActive < oldest[1].lastActive)) oldest = e;
    if (!oldest) return false;
    log.info(
      `MCP session ${oldest[0]} quiet for ${Date.now() - oldest[1].lastActive} ms: dropped to admit a new client`,
    );
    sessions.delete(oldest[0]);
    void oldest[1].server.close().catch(() => undefined);
    return true;
  };

  // Built once the port is known (port 0 picks one).
  let guard: RequestGuard | null = null;
  let peers: HttpPeers | null = null;

  /** A POST whose body is JSON but no servable message: its Invalid Request answer. */
  const invalidRequestAnswer = async (req: Request): Promise<Response | null> => {
    if (req.method !== "POST") return null;
    let json: unknown;
    try {
      // A copy: the SDK reads the body itself (and answers what is not JSON).
      json = JSON.parse(await req.clone().text());
    } catch {
      return null;
    }
    const classified = classifyMessage(json);
    if (classified.kind === "message") return null;
    log.warn(`400 ${req.method}: ${classified.why}`);
    return Response.json(classified.reply, { status: 400 });
  };

  // 2026-07-28 clients: stateless requests, answered beside the SDK's sessions (era/http-new-era.ts).
  const newEra: NewEraOptions = {
    host: app.host,
    clientId: (info) => `http:${info?.name ?? "mcp"}${info?.version ? `/${info.version}` : ""}`,
    resultForm: app.config.result_form,
    tasks: {
      inlineMs: app.config.task_inline_ms,
      pollIntervalMs: app.config.task_poll_interval_ms,
      ttlMs: app.config.task_ttl_ms,
    },
    secretPageTtlMs: isLoopbackHost(opts.host) ? app.config.secret_page_ttl_ms : undefined,
    taskSessions: new Map(),
  };
  // One store for the process: each request has its own NewEraServer, and a retry finds its call here.
  newEra.questions = questionsFor(newEra);

  const handleMcp = async (req: Request): Promise<Response> => {
    const refused = await invalidRequestAnswer(req);
    if (refused) return refused;
    const modern = await newEraBody(req);
    if (modern) return answerNewEra(modern, req, newEra);
    const sid = req.headers.get("mcp-session-id");
    if (sid !== null) {
      const s = sessions.get(sid);
      if (!s) return jsonError(404, "Session not found: start a new MCP session (initialize without Mcp-Session-Id)");
      s.lastActive = Date.now();
      const res = await s.transport.handleRequest(req);
      return req.method === "GET" ? trackStream(s, req, res) : res;
    }
    if (req.method !== "POST") return jsonError(400, "Bad Request: Mcp-Session-Id header is required");
    if (!makeRoom())
      return jsonError(503, `Too many MCP sessions (${opts.maxSessions}); close one or raise http_max_sessions`, {
        "Retry-After": "5",
      });
    const s = newSession();
    await s.server.connect(s.transport);
    const res = await s.transport.handleRequest(req);
    // Not an initialize (or a rejected one): this transport never became a session.
    if (s.transport.sessionId === undefined) await s.server.close().catch(() => undefined);
    return res;
  };

  const server = Bun.serve<TerminalSocketData>({
    hostname: opts.host,
    port: opts.port,
    maxRequestBodySize: opts.maxBodyBytes,
    idleTimeout: IDLE_TIMEOUT_S,
    websocket: web.websocket,
    ...(opts.tls ? { tls: { cert: Bun.file(opts.tls.cert), key: Bun.file(opts.tls.key) } } : {}),
    fetch: async (req, srv) => {
      // pendingRequests counts this request and every open SSE stream.
      if (srv.pendingRequests > opts.maxConnections)
        return jsonError(503, "Too many connections", { "Retry-After": "1" });
      if (closing || !guard) return jsonError(503, "Shutting down");
      // A Host no URL can hold (`127.0.0.1:PORT@evil.example`) leaves Bun a bare path as the URL:
      // the request names no server we are, so it is the Host check's to refuse, not a 500.
      const url = URL.parse(req.url);
      const health = url?.pathname === HEALTH_PATH;
      const webPath = url !== null && web.handles(url.pathname);
      if (url !== null && url.pathname !== MCP_PATH && !health && !webPath)
        return jsonError(404, `Not found: the MCP endpoint is ${MCP_PATH}, the web view is /`);
      const refusal =
        guard.refusal(req) ??
        (url === null ? `host ${String(req.headers.get("host")).slice(0, 200)} is no URL's` : null);
      if (refusal) {
        log.warn(`403 ${req.method} from ${srv.requestIP(req)?.address ?? "?"}: ${refusal}`);
        return jsonError(403, `Forbidden: ${refusal}`);
      }
      // Readiness: after the Origin/Host checks, before the token (probes hold none; it tells nothing).
      if (health) return healthAnswer(req);
      // The web view logs in by its own one-time link and cookie (src/web/login.ts), not the token.
      if (webPath && url !== null) {
        const inside = peers?.sessionOf(srv.requestIP(req)) ?? null;
        if (inside !== null) return insideRefusal(req, inside);
        // A post's body within the same deadline as /mcp's (a GET may become a WebSocket: left as it is).
        const whole = req.method === "POST" ? await withBodyWithin(req, BODY_DEADLINE_MS) : req;
        if (whole === null) return jsonError(408, "Request Timeout: the request body came too slowly");
        return web.fetch(whole, url, srv);
      }
      if (opts.token !== null && !bearerMatches(req.headers.get("authorization"), opts.token)) {
        return jsonError(401, "Unauthorized: send Authorization: Bearer <token>", {
          "WWW-Authenticate": 'Bearer realm="ptyhub"',
        });
      }
      const inside = peers?.sessionOf(srv.requestIP(req)) ?? null;
      if (inside !== null) return insideRefusal(req, inside);
      try {
        const whole = await withBodyWithin(req, BODY_DEADLINE_MS);
        if (whole === null) {
          log.warn(`408 ${req.method}: the body took longer than ${BODY_DEADLINE_MS} ms`);
          return jsonError(408, `Request Timeout: the request body took longer than ${BODY_DEADLINE_MS / 1000} s`, {
            Connection: "close",
          });
        }
        return await handleMcp(whole);
      } catch (err) {
        log.error(`${req.method} ${MCP_PATH} failed`, err);
        return jsonError(500, "Internal error");
      }
    },
    error: (err) => {
      log.error("HTTP server error", err);
      return jsonError(500, "Internal error");
    },
  });

  const port = server.port ?? opts.port;
  peers = new HttpPeers(port);
  guard = createGuard({ host: opts.host, port, tls: opts.tls !== null, extraOrigins: opts.allowedOrigins });
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const base = `${opts.tls ? "https" : "http"}://${shownHost}:${port}`;
  return {
    url: `${base}${MCP_PATH}`,
    port,
    origins: guard.origins,
    webLink: () => web.newLink(base),
    async close() {
      closing = true;
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((s) => s.server.close()));
      await server.stop(true);
    },
  };
}
