/**
 * The HTTP transport's readiness answer, `GET /healthz` → 200 `ok`: what a container engine's
 * health check or a Kubernetes probe asks before sending traffic. Probes hold no bearer token, so
 * it needs none; in return it says nothing but "this server answers" (no session, version or
 * count), and it still passes the Origin/Host checks, so a browser page learns nothing from it.
 */

export const HEALTH_PATH = "/healthz";
/** Probes read a status line; HEAD lets them skip the body. */
const HEALTH_METHODS = ["GET", "HEAD"];

export function healthAnswer(req: Request): Response {
  if (!HEALTH_METHODS.includes(req.method))
    return new Response("method not allowed\n", { status: 405, headers: { Allow: HEALTH_METHODS.join(", ") } });
  // no-store: a cache between the probe and the server must not answer for a server that is gone.
  return new Response("ok", { status: 200, headers: { "content-type": "text/plain", "cache-control": "no-store" } });
}
