/**
 * Where the guard's question goes when the agent's client will not put it to a human: with a web
 * view open, it waits there, for a client without elicitation and for one that declines by itself
 * (as Codex does, within milliseconds); with none open, such a client is refused at once, as before.
 * Over a real `serve --http`, the web view's API driven by fetch (the browser test clicks the same).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { httpFixture, type HttpServerProc } from "../http/helpers.ts";
import { connectHttp, type McpClient } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";

/** Stopped by the guard (chmod-recursive-root), and harmless when run: the directory is not there. */
const GUARDED = "chmod -R 777 /nonexistent-ptyhub-questions-test";
const ASKED_WITHIN_MS = 20_000;

const fx = httpFixture();
let server: HttpServerProc;
let base: string;
let cookie: string;
const extra: McpClient[] = [];

async function questions(): Promise<{ id: string; message: string; client: string }[]> {
  const res = await fetch(`${base}/api/questions`, { headers: { Cookie: cookie } });
  return ((await res.json()) as { questions: { id: string; message: string; client: string }[] }).questions;
}

async function answer(id: string, allow: boolean): Promise<number> {
  const res = await fetch(`${base}/api/questions/${id}`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: base, "Content-Type": "application/json" },
    body: JSON.stringify({ allow }),
  });
  return res.status;
}

beforeAll(async () => {
  server = await fx.server(fx.env({ SHELL: "/bin/bash" }));
  base = new URL(server.url).origin;
  const link = /web view .*: (http:\/\/\S+)$/m.exec(server.banner)![1]!;
  const redeemed = await fetch(link, { redirect: "manual" });
  cookie = /^ptyhub_web=[^;]+/.exec(redeemed.headers.get("set-cookie") ?? "")![0];
});
afterAll(async () => {
  await Promise.allSettled(extra.map((c) => c.close()));
  await fx.cleanup();
});

describe("the guard's questions in the web view", () => {
  test("with no web view open, a client that cannot ask is refused at once, as before", async () => {
    const agent = await fx.client(server, "no-elicitation");
    await agent.ok("term_open", { name: "q0" });
    const r = await agent.call("term_exec", { session: "q0", command: GUARDED });
    expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(r.error?.message).toContain("Nobody was asked");
  });

  test("a client declining by itself: the question waits in the web view, where a human declines", async () => {
    const codex = await connectHttp(server.url, server.token, {
      clientName: "codex-mcp-client",
      elicit: () => ({ action: "decline" }),
    });
    extra.push(codex);
    await codex.ok("term_open", { name: "q1" });
    await questions(); // The web view is open: it looks at the questions.
    const call = codex.call("term_exec", { session: "q1", command: GUARDED });
    const [q] = await waitFor(
      async () => {
        const waiting = await questions();
        return waiting.length > 0 && waiting;
      },
      ASKED_WITHIN_MS,
      "the question in the web view",
    );
    expect(q!.message).toContain(GUARDED);
    expect(q!.client).toContain("codex-mcp-client");
    expect(await answer(q!.id, false)).toBe(200);
    const r = await call;
    // Codex reads the text form: `CODE: message`.
    expect(r.isError).toBe(true);
    expect(r.text).toStartWith("BLOCKED_BY_GUARD: the human did not confirm");
    expect(await answer(q!.id, true)).toBe(404); // Answered already.
  });

  test("a client without elicitation: approved in the web view, the line runs", async () => {
    const agent = await fx.client(server, "no-elicitation-2");
    await agent.ok("term_open", { name: "q2" });
    await questions();
    const call = agent.call("term_exec", { session: "q2", command: GUARDED });
    const [q] = await waitFor(
      async () => {
        const waiting = await questions();
        return waiting.length > 0 && waiting;
      },
      ASKED_WITHIN_MS,
      "the question in the web view",
    );
    expect(await answer(q!.id, true)).toBe(200);
    const r = await call;
    expect(r.isError).toBe(false);
    expect(r.data.exit_code).toBe(1);
  });
});
