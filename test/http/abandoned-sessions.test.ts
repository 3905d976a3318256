/**
 * MCP sessions abandoned without DELETE cannot lock new clients out for long (issue 23, item 8):
 * a real `ptyhub serve --http` with room for three MCP sessions, one client holding its
 * notification stream open and two that initialized and went away. A new client is refused while
 * they are recent, admitted once the abandoned ones have been quiet for ABANDONED_AFTER_MS, and
 * the client with an open stream keeps its session.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { ABANDONED_AFTER_MS } from "../../src/mcp/http.ts";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

const PROTOCOL = "2025-06-18";

function headers(token: string, sid?: string): Record<string, string> {
  const h: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
  };
  if (sid) h["mcp-session-id"] = sid;
  return h;
}

async function initialize(url: string, token: string): Promise<{ status: number; sid: string | null }> {
  const r = await fetch(url, {
    method: "POST",
    headers: headers(token),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "t", version: "0" } },
    }),
  });
  await r.text();
  return { status: r.status, sid: r.headers.get("mcp-session-id") };
}

async function listTools(url: string, token: string, sid: string): Promise<number> {
  const r = await fetch(url, {
    method: "POST",
    headers: headers(token, sid),
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
  });
  await r.text();
  return r.status;
}

describe("abandoned MCP sessions", () => {
  test(
    "are dropped for a newcomer once quiet; a session with an open stream is kept",
    async () => {
      const s = await fx.server(fx.env({ PTYHUB_HTTP_MAX_SESSIONS: "3" }));
      const live = await initialize(s.url, s.token);
      expect(live.status).toBe(200);
      const stream = new AbortController();
      const sse = await fetch(s.url, {
        headers: { ...headers(s.token, live.sid!), accept: "text/event-stream" },
        signal: stream.signal,
      });
      expect(sse.status).toBe(200);
      try {
        for (let i = 0; i < 2; i++) expect((await initialize(s.url, s.token)).status).toBe(200);
        expect((await initialize(s.url, s.token)).status).toBe(503);
        // A newcomer keeps knocking: it is let in once a quiet session is old enough to drop.
        const admitted = async () => (await initialize(s.url, s.token)).status === 200;
        await waitFor(admitted, ABANDONED_AFTER_MS * 3, "a newcomer to be admitted");
        expect(await listTools(s.url, s.token, live.sid!)).toBe(200);
      } finally {
        stream.abort();
      }
    },
    ABANDONED_AFTER_MS * 4,
  );
});
