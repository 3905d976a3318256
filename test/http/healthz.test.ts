/**
 * `GET /healthz` of a real `ptyhub serve --http`: 200 `ok` without a token (container health checks
 * and Kubernetes probes hold none), nothing about sessions in it, the same Origin/Host refusals as
 * /mcp, only GET and HEAD; /mcp still wants the token.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

/** A real server and a daemon on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 60_000;

const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

function healthUrl(mcpUrl: string): string {
  return new URL("/healthz", mcpUrl).href;
}

test(
  "/healthz answers 200 ok without a token, and tells nothing of the sessions",
  async () => {
    const s = await fx.server(fx.env());
    const c = await fx.client(s);
    await c.ok("term_open", { name: "secret-work" });
    const r = await fetch(healthUrl(s.url));
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(await r.text()).toBe("ok");
    const head = await fetch(healthUrl(s.url), { method: "HEAD" });
    expect(head.status).toBe(200);
    // The MCP endpoint is as locked as before: no token, no entry.
    expect((await fetch(s.url, { method: "POST", body: "{}" })).status).toBe(401);
  },
  TEST_TIMEOUT_MS,
);

test(
  "/healthz refuses what /mcp refuses: a foreign Origin, a Host that is not this loopback server",
  async () => {
    const s = await fx.server(fx.env());
    const url = healthUrl(s.url);
    const foreign = await fetch(url, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("origin https://evil.example is not allowed");
    const rebound = await fetch(url, { headers: { host: `evil.example:${new URL(url).port}` } });
    expect(rebound.status).toBe(403);
    expect(await rebound.text()).toContain("is not this server");
    // The server's own origin is fine.
    const own = await fetch(url, { headers: { origin: new URL(url).origin } });
    expect(own.status).toBe(200);
  },
  TEST_TIMEOUT_MS,
);

test(
  "/healthz takes GET and HEAD only; other paths stay 404",
  async () => {
    const s = await fx.server(fx.env());
    const post = await fetch(healthUrl(s.url), { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(new URL("/healthz/x", s.url))).status).toBe(404);
    expect((await fetch(new URL("/health", s.url))).status).toBe(404);
  },
  TEST_TIMEOUT_MS,
);
