/**
 * The HTTP server refuses requests from programs inside ptyhub's own sessions (issue 23, item 4),
 * even with the right token (one a model read from the token file): a real `ptyhub serve --http`,
 * a real daemon session, and curl in it; a client outside the sessions keeps working.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

const TEST_TIMEOUT_MS = 60_000;
const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "inside", version: "0" } },
});

describe("ptyhub serve --http and programs inside sessions", () => {
  test(
    "curl with the token from inside a session gets 403 saying why; the outside client still works",
    async () => {
      const s = await fx.server(fx.env());
      const a = await fx.client(s);
      await a.ok("term_open", { name: "jump", command: "bash" });
      const curl =
        `curl -s -w '\\nHTTP %{http_code}\\n' -H 'Authorization: Bearer ${s.token}' ` +
        `-H 'content-type: application/json' -H 'accept: application/json, text/event-stream' ` +
        `--data '${INIT}' ${s.url}`;
      const r = await a.ok("term_exec", { session: "jump", command: curl });
      expect(String(r.output)).toContain("HTTP 403");
      expect(String(r.output)).toContain("refuses requests from programs running inside its own sessions");
      expect(String(r.output)).toContain("session jump");
      // A scrubbed environment does not help: its ancestors started with PTYHUB_SESSION.
      const scrubbed = await a.ok("term_exec", { session: "jump", command: `env -i ${curl}` });
      expect(String(scrubbed.output)).toContain("HTTP 403");
      const ok = await a.ok("term_exec", { session: "jump", command: "echo still-served" });
      expect(ok.output).toBe("still-served");
      await a.ok("term_close", { session: "jump" });
    },
    TEST_TIMEOUT_MS,
  );
});
