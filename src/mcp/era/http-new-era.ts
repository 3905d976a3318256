/**
 * The 2026-07-28 era over Streamable HTTP: stateless, so a POST carrying a new-era request (no
 * Mcp-Session-Id; protocol.ts says which) is answered on its own, by a NewEraServer made for it,
 * with a JSON body; `subscriptions/listen` is answered with an SSE stream that carries the
 * acknowledgement and then the notifications, until the client closes it. Everything else
 * (initialize and the 2025-11-25 session that follows) stays with the SDK's transport, unchanged.
 * Auth, Origin and the connection cap are checked before any of this (http.ts).
 */
import { isNewEraRequest, type JsonObject } from "./protocol.ts";
import { NewEraServer, type NewEraOptions } from "./new-era-server.ts";

/** SSE comment sent this often on an open listen stream, so idle proxies and Bun keep it open. */
const LISTEN_KEEPALIVE_MS = 15_000;

/** The parsed body when the request is a new-era one, else null (the SDK's transport takes it). */
type NewEraBody = JsonObject & { id: string | number; method: string };

export async function newEraBody(req: Request): Promise<NewEraBody | null> {
  if (req.method !== "POST" || req.headers.get("mcp-session-id") !== null) return null;
  let body: unknown;
  try {
    body = await req.clone().json();
  } catch {
    return null; // malformed: the SDK's transport answers it as it always has
  }
  return isNewEraRequest(body) ? body : null;
}

export function answerNewEra(body: NewEraBody, req: Request, opts: NewEraOptions) {
  if (body.method === "subscriptions/listen") return listenStream(body, req, opts);
  return new Promise<Response>((resolve) => {
    const server = new NewEraServer(opts, (message) => {
      // Only the answer to this request is owed: a plain request sends no notifications.
      if (message.id !== body.id) return;
      server.close();
      resolve(Response.json(message));
    });
    server.handle(body);
  });
}

function listenStream(body: NewEraBody, req: Request, opts: NewEraOptions) {
  const enc = new TextEncoder();
  let server: NewEraServer | null = null;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const end = () => {
        clearInterval(keepalive);
        const s = server;
        server = null;
        s?.close();
        if (!open) return;
        open = false;
        controller.close();
      };
      const write = (chunk: string) => {
        if (open) controller.enqueue(enc.encode(chunk));
      };
      server = new NewEraServer(opts, (message) => {
        write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        // The listen's own answer ends the subscription (the server is closing).
        if (message.id === body.id) end();
      });
      keepalive = setInterval(() => write(": keepalive\n\n"), LISTEN_KEEPALIVE_MS);
      req.signal.addEventListener("abort", end, { once: true });
      server.handle(body);
    },
    cancel() {
      clearInterval(keepalive);
      server?.close();
      server = null;
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}
