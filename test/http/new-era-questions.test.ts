/**
 * A plain call that asks the human, over Streamable HTTP in the 2026-07-28 era (issue 36 item 8):
 * each POST is answered by a server of its own, so the retry that carries the answer must find the
 * call the first POST left waiting at its question (one store per process). Real `ptyhub serve
 * --http`, a real shell, a guard question answered yes.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { settleLeftovers } from "../daemon/helpers.ts";
import { httpFixture } from "./helpers.ts";

const TEST_TIMEOUT_MS = 60_000;
const fx = httpFixture();
afterEach(fx.cleanup);
afterAll(async () => {
  expect(await settleLeftovers()).toEqual([]);
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "http-questions-test", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

let nextId = 0;
async function rpc(s: { url: string; token: string }, method: string, params: object): Promise<any> {
  const res = await fetch(s.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${s.token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params: { ...params, _meta: META } }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result?: any; error?: any };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

describe("2026-07-28 over HTTP: input_required on a plain call", () => {
  test(
    "the guard asks in the first POST's answer; the retry POST's yes runs that very command",
    async () => {
      const s = await fx.server(fx.env({ PTYHUB_SHELL: "/bin/bash" }));
      const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "http-mrtr-"));
      expect(Bun.spawnSync(["git", "init", "-q", dir]).exitCode).toBe(0);
      const file = join(dir, "untracked.txt");
      writeFileSync(file, "x\n");
      const call = { name: "term_exec", arguments: { command: `cd ${dir} && git clean -fdx` } };
      const asked = await rpc(s, "tools/call", call);
      expect(asked.resultType).toBe("input_required");
      expect(JSON.stringify(asked.inputRequests)).toContain("ptyhub guard");
      expect(existsSync(file)).toBe(true);
      const key = Object.keys(asked.inputRequests)[0]!;
      const ran = await rpc(s, "tools/call", {
        ...call,
        requestState: asked.requestState,
        inputResponses: { [key]: { action: "accept", content: { allow: true } } },
      });
      expect(ran.resultType).toBe("complete");
      expect(ran.structuredContent).toMatchObject({ status: "done", exit_code: 0 });
      expect(existsSync(file)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
