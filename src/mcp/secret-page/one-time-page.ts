/**
 * ptyhub's one-time secret page (URL-mode elicitation, issue 23 item 9): a tiny HTTP server on
 * 127.0.0.1 and an ephemeral port, serving one form at an address holding an unguessable token.
 * The human types the secret there, so it goes from the browser to this process and on into the
 * session without passing through the MCP client or the model.
 *
 * What keeps it one-time and local: it listens on loopback only; a request must name the page by
 * its exact token (compared in constant time) and by the Host it was served as (no DNS rebinding);
 * a submission must come from the page itself (Origin / Sec-Fetch-Site), never cross-origin (no
 * CORS headers are ever sent, and the page's CSP lets nothing load or run); the first valid
 * submission is the only one: the server then stops, as it does when the page expires unanswered.
 * A program running inside a ptyhub session is refused (issue 23 item 4: the agent's own programs
 * must not answer for the human), found as the HTTP server finds it (http-peer.ts).
 * Nothing it receives is logged.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Server } from "bun";
import { HttpPeers } from "../http-peer.ts";
import { donePage, formPage, PAGE_CSP, refusedPage, type SecretField } from "./page-html.ts";

/** Random bytes in the token: 256 bits, as unguessable as the HTTP server's bearer token. */
const TOKEN_BYTES = 32;
/** A few secrets in a form post; anything bigger is not a form of this page. */
const MAX_BODY_BYTES = 64 * 1024;
const LOOPBACK = "127.0.0.1";
const PATH_PREFIX = "/secret/";

export interface SecretPageOptions {
  /** What the human is asked (shown on the page). */
  message: string;
  fields: readonly SecretField[];
  /** The page stops answering after this long. */
  ttlMs: number;
}

export interface SecretPage {
  /** The page's one-time address, token included. */
  url: string;
  /** The values typed, by field key; null when the page expired or was closed unanswered. */
  answer: Promise<Record<string, string> | null>;
  /** Stops serving the page (an unanswered page then answers null). */
  close(): void;
}

const HEADERS: Record<string, string> = {
  "Content-Security-Policy": PAGE_CSP,
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

function html(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...HEADERS, ...extra, "Content-Type": "text/html; charset=utf-8" } });
}

function sameToken(given: string, token: Buffer): boolean {
  const bytes = Buffer.from(given, "utf8");
  return bytes.length === token.length && timingSafeEqual(bytes, token);
}

export function openSecretPage(opts: SecretPageOptions): SecretPage {
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  const tokenBytes = Buffer.from(token, "utf8");
  let settle!: (values: Record<string, string> | null) => void;
  const answer = new Promise<Record<string, string> | null>((resolve) => (settle = resolve));
  let open = true;

  const close = (): void => {
    if (!open) return;
    open = false;
    clearTimeout(expiry);
    settle(null);
    // Not forced: the answer to the submission that closed the page is still written out.
    void server.stop();
  };

  const submit = async (req: Request, pageOrigin: string): Promise<Response> => {
    // A browser names the origin of every form post; one from another site is refused (CSRF).
    const from = req.headers.get("origin");
    const site = req.headers.get("sec-fetch-site");
    if ((from !== null && from !== pageOrigin) || (site !== null && site !== "same-origin" && site !== "none")) {
      return html(403, refusedPage("This page accepts the form only from itself."));
    }
    if (!(req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
      return html(415, refusedPage("Send the page's own form."));
    }
    const form = new URLSearchParams(await req.text());
    const values: Record<string, string> = {};
    for (const f of opts.fields) {
      const v = form.get(f.key);
      if (v === null) return html(400, refusedPage(`The form lacks "${f.title}": reload the page and try again.`));
      values[f.key] = v;
    }
    // Checked again after the body was read: of two concurrent posts, only the first counts.
    if (!open) return html(410, refusedPage("This page was already used or has expired."));
    settle(values);
    close();
    return html(200, donePage());
  };

  // Known once the server listens (port 0 picks the port).
  let host = "";
  let peers: HttpPeers | null = null;
  const serve = (req: Request, srv: Server<undefined>): Response | Promise<Response> => {
    const url = new URL(req.url);
    if ((peers?.sessionOf(srv.requestIP(req)) ?? null) !== null) {
      return html(403, refusedPage("Programs running inside ptyhub's terminal sessions cannot use this page."));
    }
    // The Host header too: a page reached by another name (DNS rebinding) is not this page.
    if (req.headers.get("host") !== host) return html(421, refusedPage("Wrong host."));
    if (!url.pathname.startsWith(PATH_PREFIX) || !sameToken(url.pathname.slice(PATH_PREFIX.length), tokenBytes)) {
      return html(404, refusedPage("No such page."));
    }
    if (!open) return html(410, refusedPage("This page was already used or has expired."));
    if (req.method === "GET") return html(200, formPage(opts.message, opts.fields));
    if (req.method === "POST") return submit(req, `http://${host}`);
    return html(405, refusedPage("Only the page and its form are served."), { Allow: "GET, POST" });
  };
  const server = Bun.serve({ hostname: LOOPBACK, port: 0, maxRequestBodySize: MAX_BODY_BYTES, fetch: serve });
  host = `${LOOPBACK}:${server.port}`;
  peers = new HttpPeers(server.port ?? 0);
  const expiry = setTimeout(close, opts.ttlMs);
  return { url: `http://${host}${PATH_PREFIX}${token}`, answer, close };
}
