/**
 * The web view at `/` of `ptyhub serve --http` (issue 38): pages and scripts (assets.ts), the login
 * by a one-time link (login.ts), the JSON API (api.ts) and live terminals over WebSockets
 * (terminal-socket.ts). The HTTP server (src/mcp/http.ts) has already refused, for every path,
 * a foreign Origin, a Host that is not this server (DNS rebinding) and a program running inside a
 * ptyhub session; what is checked here is the web view's own:
 * - everything but the assets and the login needs the login cookie (HttpOnly, SameSite=Strict);
 * - a post or a WebSocket must name its Origin (a browser always does for these), which the HTTP
 *   server has checked is this server's, and say it is same-origin when it says Sec-Fetch-Site;
 * - a new login link is minted only for the bearer token (`ptyhub web` asks for one).
 */
import type { Server } from "bun";
import type { SessionHost } from "../api/host.ts";
import { SESSION_ID_RE } from "../api/session-id.ts";
import { bearerMatches } from "../config/http-token.ts";
import { answerApi } from "./api.ts";
import { asset, INDEX_HTML, LOGGED_OUT_HTML } from "./assets.ts";
import { LOGIN_PATH, loginCookie, WebLogin } from "./login.ts";
import { PendingQuestions } from "./questions.ts";
import { jsonAnswer, textAnswer, webAnswer } from "./responses.ts";
import { terminalSocket, type TerminalSocketData } from "./terminal-socket.ts";

/** `ptyhub web` posts here, with the bearer token, for a new one-time login link. */
export const NEW_LINK_PATH = "/login/new";
const TERMINAL_PATH = "/ws/term/";
/** The window a viewer that names none is assumed to have. */
const DEFAULT_VIEW = { cols: 80, rows: 24 };
/** After a login from another site's link: on to `/` at once. */
const MOVE_ON_HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">' +
  '<meta http-equiv="refresh" content="0;url=/"><title>ptyhub</title></head><body><a href="/">ptyhub</a></body></html>';

export interface WebViewOptions {
  host: SessionHost;
  /** The bearer token of /mcp (null with --insecure-no-auth: then no link is minted on request). */
  token: string | null;
  /** Cookies get Secure when served over TLS. */
  tls: boolean;
}

/** Asked for by every browser on its own. */
const FAVICON_PATH = "/favicon.ico";

export interface WebView {
  readonly questions: PendingQuestions;
  readonly websocket: typeof terminalSocket;
  /** Whether `path` is the web view's (everything but the MCP endpoint and the readiness answer). */
  handles(path: string): boolean;
  /** A one-time login link on `base` (the server's origin). */
  newLink(base: string): string;
  /** The answer; undefined when the request became a WebSocket. */
  fetch(req: Request, url: URL, srv: Server<TerminalSocketData>): Promise<Response | undefined>;
}

function sameOriginRequest(req: Request): boolean {
  const site = req.headers.get("sec-fetch-site");
  return req.headers.get("origin") !== null && (site === null || site === "same-origin");
}

function viewSize(url: URL): { cols: number; rows: number } {
  const cols = Number(url.searchParams.get("cols"));
  const rows = Number(url.searchParams.get("rows"));
  return Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0 ? { cols, rows } : DEFAULT_VIEW;
}

export function createWebView(opts: WebViewOptions): WebView {
  const login = new WebLogin();
  const questions = new PendingQuestions();
  const newLink = (base: string) => `${base}${LOGIN_PATH}?code=${login.newCode()}`;

  const redeem = (req: Request, url: URL): Response => {
    const cookie = login.redeem(url.searchParams.get("code") ?? "");
    if (cookie === null) return webAnswer(403, LOGGED_OUT_HTML, { "Content-Type": "text/html; charset=utf-8" });
    const setCookie = { "Set-Cookie": loginCookie(cookie, opts.tls) };
    // A link followed from another site (a chat in a browser tab): a redirect would still be that
    // site's navigation, which a SameSite=Strict cookie is not sent with, so this page moves on
    // by itself instead (a meta refresh: no script), as a navigation of its own.
    const site = req.headers.get("sec-fetch-site");
    if (site === "cross-site" || site === "same-site")
      return webAnswer(200, MOVE_ON_HTML, { ...setCookie, "Content-Type": "text/html; charset=utf-8" });
    // 303 to `/`: the code leaves the address bar and the history at once (it is spent anyway).
    return webAnswer(303, null, { ...setCookie, Location: "/" });
  };

  return {
    questions,
    websocket: terminalSocket,
    newLink,
    handles: (path) =>
      path === "/" ||
      path === FAVICON_PATH ||
      path.startsWith("/assets/") ||
      path.startsWith(LOGIN_PATH) ||
      path.startsWith("/api/") ||
      path.startsWith(TERMINAL_PATH),
    async fetch(req, url, srv) {
      const path = url.pathname;
      // Browsers ask for it on every page: no icon, and no error in the console for it.
      if (path === FAVICON_PATH) return webAnswer(204, null, {});
      if (path.startsWith("/assets/")) return asset(path.slice("/assets/".length)) ?? textAnswer(404, "no such file");
      if (path === NEW_LINK_PATH) {
        if (req.method !== "POST") return textAnswer(405, "POST with the bearer token");
        if (opts.token === null || !bearerMatches(req.headers.get("authorization"), opts.token))
          return jsonAnswer(401, { error: "send Authorization: Bearer <token>" });
        return jsonAnswer(200, { url: newLink(url.origin) });
      }
      if (path === LOGIN_PATH) return req.method === "GET" ? redeem(req, url) : textAnswer(405, "GET the link");
      if (!login.loggedIn(req)) {
        if (path === "/") return webAnswer(401, LOGGED_OUT_HTML, { "Content-Type": "text/html; charset=utf-8" });
        return jsonAnswer(401, { error: "log in with the link `ptyhub web` prints" });
      }
      if (path === "/") return webAnswer(200, INDEX_HTML, { "Content-Type": "text/html; charset=utf-8" });
      if (req.method !== "GET" && !sameOriginRequest(req))
        return jsonAnswer(403, { error: "a change must come from the web view's own page" });
      if (path.startsWith(TERMINAL_PATH)) {
        if (!sameOriginRequest(req)) return jsonAnswer(403, { error: "WebSockets only from the web view's own page" });
        const session = path.slice(TERMINAL_PATH.length);
        if (!SESSION_ID_RE.test(session)) return jsonAnswer(400, { error: "invalid session name" });
        const data: TerminalSocketData = {
          session,
          ...viewSize(url),
          takeover: false,
          daemon: null,
          closed: false,
        };
        if (srv.upgrade(req, { data })) return undefined;
        return textAnswer(426, "a WebSocket upgrade was expected");
      }
      if (req.method === "POST" && !(req.headers.get("content-type") ?? "").startsWith("application/json"))
        return jsonAnswer(415, { error: "send application/json" });
      return answerApi(req, path, { host: opts.host, questions });
    },
  };
}
