/**
 * `ptyhub serve --http` driven by the SDK's Streamable HTTP client: tools work; auth and Origin
 * refusals; loopback-only by default; bad HTTP input gets clear errors and the server keeps
 * serving; HTTP and stdio clients share one daemon session, each with its own read cursor;
 * resource updates arrive over SSE; kill -9 loses no session; SIGTERM ends cleanly.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { daemonStatus } from "../helpers/daemon.ts";
import { CLI } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

/** Each test starts real servers and a daemon; generous for a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 60_000;

const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** Listening sockets of /proc/net/tcp{,6} on `port`, as "address" strings (hex, kernel order). */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // st 0A = LISTEN
      if (f[1]?.endsWith(`:${hexPort}`) && f[3] === "0A") out.push(f[1].split(":")[0]!);
    }
  }
  return out;
}

describe("ptyhub serve --http", () => {
  test(
    "tools work over HTTP; it listens on 127.0.0.1 only; the generated token file is 0600",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const port = Number(new URL(s.url).port);
      expect(listeners(port)).toEqual(["0100007F"]); // 127.0.0.1, nothing else
      const file = /token in (\S+)>/.exec(s.banner)![1]!;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(s.token.length).toBeGreaterThanOrEqual(43); // base64url of 32 bytes

      const a = await fx.client(s);
      const tools = await a.client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("term_exec");
      const r = await a.ok("term_exec", { command: "echo hi-$((6*7))" });
      expect(r.exit_code).toBe(0);
      expect(String(r.output)).toContain("hi-42");
      // Persistent by default: the session lives in the daemon, not in the HTTP server.
      expect((await daemonStatus(e))?.sessions).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "401 without or with a wrong token, 403 for a foreign Origin or a rebound Host; the server keeps serving",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      const port = new URL(s.url).port;
      const post = (headers: Record<string, string>, body: string = JSON.stringify(INIT)) =>
        fetch(s.url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });
      const auth = { authorization: `Bearer ${s.token}` };

      const none = await post({});
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      expect((await post({ authorization: `Bearer ${s.token.slice(0, -1)}x` })).status).toBe(401);
      expect((await post({ authorization: s.token })).status).toBe(401); // no "Bearer" scheme
      expect((await post({ ...auth, origin: "http://evil.example" })).status).toBe(403);
      expect((await post({ ...auth, origin: "null" })).status).toBe(403);
      // DNS rebinding: the page's own origin, but the attacker's host name.
      expect(
        (await post({ ...auth, origin: `http://rebind.example:${port}`, host: `rebind.example:${port}` })).status,
      ).toBe(403);
      expect((await post({ ...auth, host: `rebind.example:${port}` })).status).toBe(403);
      // A Host no URL can hold (userinfo-like, a path in it) is refused too, not an internal error.
      expect((await post({ ...auth, host: `127.0.0.1:${port}@evil.example` })).status).toBe(403);
      expect((await post({ ...auth, host: `127.0.0.1:${port}/x` })).status).toBe(403);
      // Origin is checked before the token: a page learns nothing, even with a right guess.
      expect((await post({ origin: "http://evil.example" })).status).toBe(403);
      // The server's own origin is fine.
      const own = await post({ ...auth, origin: `http://127.0.0.1:${port}` });
      expect(own.status).toBe(200);
      expect(own.headers.get("mcp-session-id")).toBeTruthy();
      await own.body?.cancel();

      const a = await fx.client(s);
      expect((await a.ok("term_list")).sessions).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "bad HTTP input: oversized body 413, wrong content type 415, malformed JSON 400, unknown path 404, unknown session 404",
    async () => {
      const e = fx.env({ PTYHUB_HTTP_MAX_BODY_BYTES: "4096" });
      const s = await fx.server(e);
      const auth = { authorization: `Bearer ${s.token}` };
      const post = (headers: Record<string, string>, body: string) =>
        fetch(s.url, { method: "POST", headers: { ...MCP_HEADERS, ...auth, ...headers }, body });

      const big = await post({}, JSON.stringify({ ...INIT, params: { ...INIT.params, pad: "x".repeat(10_000) } }));
      expect(big.status).toBe(413);
      expect((await post({ "content-type": "text/plain" }, JSON.stringify(INIT))).status).toBe(415);
      const bad = await post({}, "{not json");
      expect(bad.status).toBe(400);
      expect(JSON.stringify(await bad.json())).toContain("Parse error");
      expect(
        (
          await fetch(s.url.replace(/\/mcp$/, "/other"), {
            method: "POST",
            headers: { ...MCP_HEADERS, ...auth },
            body: "{}",
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await post(
            { "mcp-session-id": "no-such-session" },
            JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
          )
        ).status,
      ).toBe(404);
      // A request that is not initialize, without a session: refused, and no session is created.
      expect((await post({}, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }))).status).toBe(400);

      const a = await fx.client(s);
      const r = await a.ok("term_exec", { command: "echo still-up" });
      expect(String(r.output)).toContain("still-up");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a batch, [] and an object or boolean id get a JSON-RPC Invalid Request, in a session and without one",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      const auth = { authorization: `Bearer ${s.token}` };
      const opened = await fetch(s.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...auth },
        body: JSON.stringify(INIT),
      });
      const sid = opened.headers.get("mcp-session-id")!;
      await opened.body?.cancel();
      const inSession = { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" };
      const invalid = (id: unknown) => ({ jsonrpc: "2.0", id, error: { code: -32600 } });
      for (const headers of [inSession, {}]) {
        const post = async (body: unknown) => {
          const res = await fetch(s.url, {
            method: "POST",
            headers: { ...MCP_HEADERS, ...auth, ...headers },
            body: JSON.stringify(body),
          });
          return { status: res.status, json: await res.json() };
        };
        const batch = await post([
          { jsonrpc: "2.0", id: 2, method: "ping" },
          { jsonrpc: "2.0", id: "three", method: "tools/list" },
        ]);
        expect(batch).toMatchObject({ status: 400, json: [invalid(2), invalid("three")] });
        expect(await post([])).toMatchObject({ status: 400, json: invalid(null) });
        expect(await post({ jsonrpc: "2.0", id: { n: 4 }, method: "ping" })).toMatchObject({ json: invalid(null) });
        expect(await post({ jsonrpc: "2.0", id: true, method: "ping" })).toMatchObject({ json: invalid(null) });
      }
      const a = await fx.client(s);
      expect((await a.ok("term_list")).sessions).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "beyond http_max_sessions a new client gets 503, live clients keep working, and a closed one frees its slot",
    async () => {
      const e = fx.env({ PTYHUB_HTTP_MAX_SESSIONS: "1" });
      const s = await fx.server(e);
      const a = await fx.client(s, "first");
      const refused = await fetch(s.url, {
        method: "POST",
        headers: { ...MCP_HEADERS, authorization: `Bearer ${s.token}` },
        body: JSON.stringify(INIT),
      });
      expect(refused.status).toBe(503);
      expect(await refused.text()).toContain("http_max_sessions");
      expect((await a.ok("term_list")).sessions).toEqual([]);
      // DELETE ends the first MCP session: its slot is free for the next client.
      await a.close();
      const b = await fx.client(s, "second");
      expect((await b.ok("term_list")).sessions).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a flood of connections beyond http_max_connections gets 503; the server recovers",
    async () => {
      const cap = 3;
      const e = fx.env({ PTYHUB_HTTP_MAX_CONNECTIONS: String(cap) });
      const s = await fx.server(e);
      // Requests whose bodies never finish hold their connections open, as a slow flood would.
      const flood = Array.from({ length: cap }, () => {
        const ac = new AbortController();
        const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode("{")) });
        const req = fetch(s.url, {
          method: "POST",
          headers: { ...MCP_HEADERS, authorization: `Bearer ${s.token}` },
          body,
          signal: ac.signal,
        }).catch(() => null);
        return { ac, req };
      });
      const probe = async () => {
        const r = await fetch(s.url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT) });
        await r.body?.cancel();
        return r;
      };
      let refused: Response | null = null;
      await waitFor(
        async () => {
          const r = await probe();
          if (r.status === 503) refused = r;
          return refused !== null;
        },
        20_000,
        "a request beyond the connection cap to be refused",
      );
      expect(refused!.headers.get("retry-after")).toBeTruthy();
      for (const f of flood) f.ac.abort();
      await Promise.all(flood.map((f) => f.req));
      await waitFor(async () => (await probe()).status === 401, 20_000, "the server to accept connections again");
      const a = await fx.client(s);
      expect(String((await a.ok("term_exec", { command: "echo recovered" })).output)).toContain("recovered");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "two HTTP clients and a stdio client drive one session, each with its own read cursor",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      const a = await fx.client(s, "agent-a");
      const b = await fx.client(s, "agent-b");
      const c = await fx.stdio(e);
      await a.ok("term_open", { name: "shared" });
      await b.ok("term_send", {
        session: "shared",
        text: "echo FROM-B-$((2+3))",
        until: "FROM-B-5",
        wait_ms: 10_000,
      });
      await c.ok("term_send", {
        session: "shared",
        text: "echo FROM-STDIO-$((3+4))",
        until: "FROM-STDIO-7",
        wait_ms: 10_000,
      });
      // Everyone sees the one session.
      for (const x of [a, b, c]) {
        expect(((await x.ok("term_list")).sessions as Array<{ session: string }>).map((t) => t.session)).toEqual([
          "shared",
        ]);
      }
      // A has not read yet: both commands' output is new to A (its cursor, not B's or C's).
      const ra = String((await a.ok("term_read", { session: "shared", wait_ms: 0 })).output);
      expect(ra).toContain("FROM-B-5");
      expect(ra).toContain("FROM-STDIO-7");
      // B read up to its own marker while sending: the stdio client's output is still new to B.
      const rb = String((await b.ok("term_read", { session: "shared", wait_ms: 0 })).output);
      expect(rb).toContain("FROM-STDIO-7");
      expect(rb).not.toContain("FROM-B-5");
      // Reading again gives nothing new to A.
      expect(String((await a.ok("term_read", { session: "shared", wait_ms: 0 })).output)).not.toContain("FROM-");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "resource subscriptions notify over SSE",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      const watcher = await fx.client(s, "watcher");
      const actor = await fx.client(s, "actor");
      const updates: string[] = [];
      watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
      });
      await actor.ok("term_open", { name: "watched" });
      await watcher.client.subscribeResource({ uri: "ptyhub://sessions/watched/screen" });
      await actor.ok("term_exec", { session: "watched", command: "echo done" });
      await waitFor(() => updates.includes("ptyhub://sessions/watched/screen"), 20_000, "a resource update over SSE");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "kill -9 of the HTTP server loses no session; a restarted server serves it with the same token",
    async () => {
      const e = fx.env();
      const s1 = await fx.server(e);
      const a = await fx.client(s1);
      await a.ok("term_open", { name: "survivor" });
      await a.ok("term_send", {
        session: "survivor",
        text: "echo BEFORE; sleep 0.5; echo AFTER-$((5*5))",
        until: "BEFORE",
        wait_ms: 10_000,
      });
      await s1.kill();
      expect(alive(s1.pid)).toBe(false);
      expect((await daemonStatus(e))?.sessions).toBe(1);

      const s2 = await fx.server(e);
      expect(s2.token).toBe(s1.token); // the token file is reused, so registered clients keep working
      expect(s2.banner).not.toContain("generated now");
      const b = await fx.client(s2);
      const list = (await b.ok("term_list")).sessions as Array<{ session: string; alive: boolean }>;
      expect(list).toEqual([expect.objectContaining({ session: "survivor", alive: true })]);
      const r = await b.ok("term_read", { session: "survivor", until: "AFTER-25", wait_ms: 10_000 });
      expect(String(r.output)).toContain("AFTER-25");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "SIGTERM ends the server cleanly (exit 0); persistent sessions keep running in the daemon",
    async () => {
      const e = fx.env();
      const s = await fx.server(e);
      const a = await fx.client(s);
      await a.ok("term_open", { name: "keeps" });
      expect(await s.terminate()).toBe(0);
      expect((await daemonStatus(e))?.sessions).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "PTYHUB_HTTP_TOKEN is used when set (and a short one is refused)",
    async () => {
      const token = "t".repeat(20) + crypto.randomUUID();
      const e = fx.env({ PTYHUB_HTTP_TOKEN: token });
      const s = await fx.server(e);
      expect(s.banner).toContain("PTYHUB_HTTP_TOKEN");
      const a = await fx.client({ url: s.url, token });
      expect((await a.ok("term_list")).sessions).toEqual([]);
      const short = Bun.spawnSync([process.execPath, CLI, "serve", "--http", "--port", "0"], {
        env: { ...e, PTYHUB_HTTP_TOKEN: "short" },
        stderr: "pipe",
      });
      expect(short.exitCode).toBe(1);
      expect(short.stderr.toString()).toContain("shorter than");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "--insecure-no-auth serves without a token, and says so loudly",
    async () => {
      const e = fx.env();
      const s = await fx.server(e, ["--insecure-no-auth"]);
      expect(s.banner).toContain("auth: NONE");
      const r = await fetch(s.url, { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(INIT) });
      expect(r.status).toBe(200);
      await r.body?.cancel();
      await waitFor(() => s.stderr().includes("AUTHENTICATION DISABLED"), 5000, "the warning in the log");
      // Origin is still checked.
      expect(
        (
          await fetch(s.url, {
            method: "POST",
            headers: { ...MCP_HEADERS, origin: "http://evil.example" },
            body: JSON.stringify(INIT),
          })
        ).status,
      ).toBe(403);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "--tls-cert/--tls-key serve HTTPS: the SDK client works over TLS with the certificate",
    async () => {
      const e = fx.env();
      const dir = mkdtempSync(join(e.XDG_STATE_HOME!, "..", "tls-"));
      const cert = join(dir, "cert.pem");
      const key = join(dir, "key.pem");
      const gen = Bun.spawnSync(
        [
          "openssl",
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=127.0.0.1",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
          "-keyout",
          key,
          "-out",
          cert,
        ],
        { stdout: "ignore", stderr: "pipe" },
      );
      expect(gen.exitCode).toBe(0);
      const s = await fx.server(e, ["--tls-cert", cert, "--tls-key", key]);
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const ca = readFileSync(cert, "utf8");
      const tlsFetch = (url: string | URL, init?: RequestInit) => fetch(url, { ...init, tls: { ca } });
      // Plain HTTP to the TLS port is not served.
      const plain = await fetch(s.url.replace("https:", "http:"), {
        method: "POST",
        headers: MCP_HEADERS,
        body: "{}",
      }).catch((err: Error) => err);
      expect(plain instanceof Error || plain.status >= 400).toBe(true);
      const transport = new StreamableHTTPClientTransport(new URL(s.url), {
        requestInit: { headers: { Authorization: `Bearer ${s.token}` } },
        fetch: tlsFetch,
      });
      const client = new Client({ name: "tls-test", version: "0" });
      await client.connect(transport);
      try {
        const r = (await client.callTool({ name: "term_exec", arguments: { command: "echo over-tls" } })) as {
          structuredContent?: Record<string, unknown>;
        };
        expect(String(r.structuredContent?.output)).toContain("over-tls");
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
