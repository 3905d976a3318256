/**
 * The 2026-07-28 era over Streamable HTTP against a real `ptyhub serve --http`: stateless POSTs
 * (no initialize, no Mcp-Session-Id), a long term_exec as a task kept in the daemon, and
 * subscriptions/listen as an SSE stream. The bearer token is required as for every request.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

const TEST_TIMEOUT_MS = 60_000;
const INLINE_MS = 1500;
const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-era-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(s: { url: string; token: string }, body: object, signal?: AbortSignal): Promise<Response> {
  return fetch(s.url, {
    method: "POST",
    headers: { ...HEADERS, authorization: `Bearer ${s.token}` },
    body: JSON.stringify(body),
    signal,
  });
}

let nextId = 0;
async function rpc(s: { url: string; token: string }, method: string, params: object = {}): Promise<any> {
  const res = await post(s, { jsonrpc: "2.0", id: ++nextId, method, params: { ...params, _meta: META } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result?: any; error?: any };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** SSE events of a response, as parsed JSON messages, one at a time. */
async function* events(res: Response): AsyncGenerator<any> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body!) {
    buf += dec.decode(chunk, { stream: true });
    for (let end = buf.indexOf("\n\n"); end >= 0; end = buf.indexOf("\n\n")) {
      const event = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = event.split("\n").find((l) => l.startsWith("data: "));
      if (data) yield JSON.parse(data.slice(6));
    }
  }
}

describe("2026-07-28 over HTTP", () => {
  test(
    "server/discover and a task, stateless: no initialize, no MCP session",
    async () => {
      const s = await fx.server(fx.env({ PTYHUB_TASK_INLINE_MS: String(INLINE_MS) }));
      const discover = await rpc(s, "server/discover");
      expect(discover).toMatchObject({ resultType: "complete", supportedVersions: ["2026-07-28"] });
      expect(discover.capabilities.extensions).toHaveProperty(["io.modelcontextprotocol/tasks"]);
      const gate = join(mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "http-era-")), "go");
      const command = `while [ ! -e ${gate} ]; do sleep 0.05; done; echo BUILD-OK`;
      const task = await rpc(s, "tools/call", { name: "term_exec", arguments: { command } });
      expect(task.resultType).toBe("task");
      expect((await rpc(s, "tasks/get", { taskId: task.taskId })).status).toBe("working");
      writeFileSync(gate, "");
      let got = await rpc(s, "tasks/get", { taskId: task.taskId });
      while (got.status === "working") {
        // The protocol's pacing: a client polls at the interval the server asks for.
        await Bun.sleep(got.pollIntervalMs);
        got = await rpc(s, "tasks/get", { taskId: task.taskId });
      }
      expect(got.status).toBe("completed");
      expect(got.result.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "BUILD-OK" });
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "subscriptions/listen: an SSE stream with the acknowledgement, then list changes tagged with it",
    async () => {
      const s = await fx.server(fx.env());
      const stop = new AbortController();
      const res = await post(
        s,
        {
          jsonrpc: "2.0",
          id: "listen",
          method: "subscriptions/listen",
          params: { notifications: { resourcesListChanged: true }, _meta: META },
        },
        stop.signal,
      );
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const stream = events(res);
      const ack = (await stream.next()).value;
      expect(ack.method).toBe("notifications/subscriptions/acknowledged");
      expect(ack.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("listen");
      await rpc(s, "tools/call", { name: "term_open", arguments: { name: "http-era" } });
      const changed = (await stream.next()).value;
      expect(changed.method).toBe("notifications/resources/list_changed");
      expect(changed.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("listen");
      stop.abort();
      await rpc(s, "tools/call", { name: "term_close", arguments: { session: "http-era" } });
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "without the token a new-era request gets 401 and nothing runs",
    async () => {
      const s = await fx.server(fx.env());
      const res = await post({ url: s.url, token: "wrong" }, { jsonrpc: "2.0", id: 1, method: "server/discover" });
      expect(res.status).toBe(401);
    },
    TEST_TIMEOUT_MS,
  );
});
