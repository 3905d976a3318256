/**
 * What every web-view answer carries: a strict Content-Security-Policy (scripts only from this
 * server's own files, never inline; connections only back to it), no caching, no framing, no
 * referrer, no sniffing. Styles may be inline because xterm.js writes its theme into a <style>
 * element it creates; no script can run from a style.
 */

/** Who the web view's calls and answers are from, in the audit trail and the session host. */
export const HUMAN_CLIENT_ID = "web:human";

export const WEB_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "img-src 'self' data:; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export const WEB_HEADERS: Record<string, string> = {
  "Content-Security-Policy": WEB_CSP,
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

type Body = ConstructorParameters<typeof Response>[0];

export function webAnswer(status: number, body: Body, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...WEB_HEADERS, ...headers } });
}

export function jsonAnswer(status: number, body: unknown): Response {
  return webAnswer(status, JSON.stringify(body), { "Content-Type": "application/json" });
}

export function textAnswer(status: number, text: string): Response {
  return webAnswer(status, text, { "Content-Type": "text/plain; charset=utf-8" });
}
