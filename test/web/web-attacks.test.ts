/**
 * The attacks the HTTP suite tries on /mcp, tried on the web view's endpoints of a real
 * `ptyhub serve --http`: a foreign Origin, a rebound Host, no or a wrong login, the bearer token
 * where a login is wanted, cross-site posts (CSRF) and WebSockets, a spent login code, and a
 * program inside a ptyhub session asking for a login link. Plain fetch and Bun's WebSocket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { httpFixture, type HttpServerProc } from "../http/helpers.ts";
import type { McpClient } from "../helpers/mcp-client.ts";

const fx = httpFixture();
let server: HttpServerProc;
let base: string;
let cookie: string;
let agent: McpClient;
const SESSION = "attacked";

async function login(): Promise<string> {
  const res = await fetch(`${base}/login/new`, {
    method: "POST",
    headers: { Authorization: `Bearer ${server.token}` },
  });
  const { url } = (await res.json()) as { url: string };
  const redeemed = await fetch(url, { redirect: "manual" });
  expect(redeemed.status).toBe(303);
  return /^ptyhub_web=[^;]+/.exec(redeemed.headers.get("set-cookie") ?? "")![0];
}

beforeAll(async () => {
  const env = fx.env();
  server = await fx.server(env);
  base = new URL(server.url).origin;
  cookie = await login();
  agent = await fx.client(server, "agent");
  await agent.ok("term_open", { name: SESSION });
});
afterAll(() => fx.cleanup());

describe("who may reach the web view", () => {
  test("a foreign Origin is refused on every web endpoint, even with the login cookie", async () => {
    for (const path of ["/", "/api/sessions", "/login?code=x", "/login/new", `/ws/term/${SESSION}`]) {
      const res = await fetch(`${base}${path}`, { headers: { Origin: "http://evil.example", Cookie: cookie } });
      expect(res.status).toBe(403);
    }
  });

  test("a rebound Host (DNS rebinding) is refused", async () => {
    const port = new URL(base).port;
    for (const path of ["/", "/api/sessions", "/login/new"]) {
      const res = await fetch(`${base}${path}`, { headers: { Host: `evil.example:${port}`, Cookie: cookie } });
      expect(res.status).toBe(403);
    }
  });

  test("no login, a wrong cookie, or the bearer token instead of a login: 401", async () => {
    for (const headers of [
      {},
      { Cookie: "ptyhub_web=not-a-login" },
      { Authorization: `Bearer ${server.token}` },
    ] as Record<string, string>[]) {
      expect((await fetch(`${base}/api/sessions`, { headers })).status).toBe(401);
      expect((await fetch(`${base}/`, { headers })).status).toBe(401);
    }
    const ok = await fetch(`${base}/api/sessions`, { headers: { Cookie: cookie } });
    expect(ok.status).toBe(200);
    const { sessions } = (await ok.json()) as { sessions: { session: string }[] };
    expect(sessions.map((s) => s.session)).toContain(SESSION);
  });

  test("a login link is minted only for the bearer token; a code works once; a made-up code never", async () => {
    expect((await fetch(`${base}/login/new`, { method: "POST" })).status).toBe(401);
    const wrong = await fetch(`${base}/login/new`, { method: "POST", headers: { Authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const { url } = (await (
      await fetch(`${base}/login/new`, { method: "POST", headers: { Authorization: `Bearer ${server.token}` } })
    ).json()) as { url: string };
    expect((await fetch(url, { redirect: "manual" })).status).toBe(303);
    expect((await fetch(url, { redirect: "manual" })).status).toBe(403);
    expect((await fetch(`${base}/login?code=${"A".repeat(43)}`, { redirect: "manual" })).status).toBe(403);
  });

  test("pages carry a strict CSP: scripts only from the server's files, none inline, no framing", async () => {
    const res = await fetch(`${base}/`, { headers: { Cookie: cookie } });
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    const html = await res.text();
    // Every script element loads a file: none has a body.
    expect(html.match(/<script[^>]*>[^<]+<\/script>/g)).toBeNull();
    expect(html).toContain('<script type="module" src="/assets/app.js"></script>');
  });
});

describe("cross-site requests (CSRF)", () => {
  const post = (headers: Record<string, string>, body = '{"allow":true}') =>
    fetch(`${base}/api/questions/some-id`, { method: "POST", headers: { Cookie: cookie, ...headers }, body });

  test("a post must name the page's own Origin, be same-origin by Sec-Fetch-Site, and be JSON", async () => {
    const own = { Origin: base, "Content-Type": "application/json" };
    expect((await post({ "Content-Type": "application/json" })).status).toBe(403); // no Origin
    expect((await post({ ...own, Origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ ...own, "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect(
      (await post({ Origin: base, "Content-Type": "application/x-www-form-urlencoded" }, "allow=true")).status,
    ).toBe(415);
    // All of it right: it reaches the questions (there is no such one).
    expect((await post(own)).status).toBe(404);
  });

  test("a WebSocket needs the login and the page's own Origin; a read-only viewer cannot type", async () => {
    const refused = await fetch(`${base}/ws/term/${SESSION}`, {
      headers: {
        Cookie: cookie,
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    expect(refused.status).toBe(403); // no Origin
    const ws = new WebSocket(`${base.replace("http", "ws")}/ws/term/${SESSION}`, {
      headers: { Cookie: cookie, Origin: base },
    });
    const frames: Record<string, unknown>[] = [];
    const got = (type: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const f = frames.find((x) => x.type === type);
          if (f) resolve(f);
          else setTimeout(check, 20);
        };
        check();
      });
    ws.onmessage = (ev) => {
      if (typeof ev.data === "string") frames.push(JSON.parse(ev.data));
    };
    await new Promise((resolve) => (ws.onopen = resolve));
    const hello = await got("hello");
    expect(hello.session).toBe(SESSION);
    ws.send(JSON.stringify({ type: "input", data: "echo should-not-run\r" }));
    const error = await got("error");
    expect(String(error.message)).toContain("read-only");
    ws.close();
    const screen = (await agent.ok("term_read", { session: SESSION, mode: "screen" })).output as string;
    expect(screen).not.toContain("should-not-run");
  });
});

describe("programs inside ptyhub's sessions", () => {
  test("are refused a login link and the pages, as the secret page refuses them", async () => {
    const r = await agent.ok("term_exec", {
      session: SESSION,
      command:
        `curl -s -o /dev/null -w '%{http_code}\\n' -X POST -H 'Authorization: Bearer ${server.token}' ` +
        `${base}/login/new; curl -s -o /dev/null -w '%{http_code}\\n' ${base}/`,
    });
    expect(String(r.output).trim().split("\n")).toEqual(["403", "403"]);
  });
});
