/**
 * Asking the human on a plain call in the 2026-07-28 era (issue 36 item 8; SPEC "Protocol eras and
 * Tasks"): term_secret and a guard question answer `input_required` with the question in
 * `inputRequests`, the client retries the same call with `inputResponses` and the `requestState`,
 * and the call goes on with the answer: the secret is typed, the command runs or is refused. A
 * refusal faster than anyone can read says nobody was asked; a client without elicitation and a
 * 2025-11-25 client (server-initiated elicitation/create) are as before. Real shells, the real
 * server over stdio; in-process sessions and the daemon's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { NewEraClient } from "../helpers/mcp-2026.ts";
import { startMcp } from "../helpers/mcp-client.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { waitFor } from "../helpers/wait.ts";
import { UNASKED_ANSWER_MS } from "../../src/mcp/unasked.ts";

const ENV = { PTYHUB_SHELL: "/bin/bash", PTYHUB_PERSISTENT: "0" };
/** Made at run time, so no file holds it and any output that does leaked it. */
const SECRET = `mrtr-${randomBytes(9).toString("base64url")}`;
/** Reads a hidden line and proves what it got without printing it. */
const READ_SECRET = `read -rs -p 'Password: ' pw; echo; echo "got $(printf %s "$pw" | sha256sum | cut -c1-16)"`;
const SECRET_SHA = new Bun.CryptoHasher("sha256").update(SECRET).digest("hex").slice(0, 16);
/** A human takes longer than this to read a question and answer it. */
const HUMAN_PAUSE_MS = UNASKED_ANSWER_MS + 150;

const clients: NewEraClient[] = [];
function client(opts: ConstructorParameters<typeof NewEraClient>[0] = {}): NewEraClient {
  const c = new NewEraClient({ env: ENV, ...opts });
  clients.push(c);
  return c;
}
afterAll(async () => {
  for (const c of clients) await c.close();
  await stopDaemon();
});

function text(result: Record<string, any>): string {
  return result.content[0]!.text;
}

/** A scratch git repository with one untracked file, which `git clean -fdx` would delete. */
function repoWithUntracked(): { dir: string; file: string } {
  const dir = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "mrtr-repo-"));
  const init = Bun.spawnSync(["git", "init", "-q", dir]);
  if (init.exitCode !== 0) throw new Error(`git init failed: ${init.stderr.toString()}`);
  const file = join(dir, "untracked.txt");
  writeFileSync(file, "keep me unless the human says yes\n");
  return { dir, file };
}

describe("2026-07-28 era: a plain call asks with input_required, the retry answers", () => {
  let era: NewEraClient;
  beforeAll(() => {
    era = client();
  });

  test("term_secret: a form in inputRequests; the retried call types the secret, which no result shows", async () => {
    const atPrompt = await era.result("tools/call", { name: "term_exec", arguments: { command: READ_SECRET } });
    expect(atPrompt.structuredContent).toMatchObject({ status: "input", state: "password" });
    const args = { session: "main" };
    const asked = await era.result("tools/call", { name: "term_secret", arguments: args });
    expect(asked.resultType).toBe("input_required");
    expect(typeof asked.requestState).toBe("string");
    const [request] = Object.values(asked.inputRequests) as Record<string, any>[];
    expect(request!.method).toBe("elicitation/create");
    expect(request!.params.mode).toBe("form");
    expect(Object.keys(request!.params.requestedSchema.properties)).toEqual(["secret"]);
    // The human learns the form passes through the client (no URL mode declared).
    expect(request!.params.message).toContain("Form fallback");

    const done = (await era.answer("term_secret", args, asked, { action: "accept", content: { secret: SECRET } }))
      .result;
    expect(done.resultType).toBe("complete");
    expect(done.isError).toBeFalsy();
    expect(text(done)).toBe("[secret typed into main]");
    const read = await era.result("tools/call", {
      name: "term_read",
      arguments: { session: "main", until: "got [0-9a-f]{16}", wait_ms: 20_000 },
    });
    expect(read.structuredContent.output).toContain(`got ${SECRET_SHA}`);
    expect(JSON.stringify([atPrompt, asked, done, read])).not.toContain(SECRET);
  });

  test("a guard question: accepted, the very command runs; a human's decline is refused as declined", async () => {
    const { dir, file } = repoWithUntracked();
    const args = { command: `cd ${dir} && git clean -fdx` };
    const refusedAsked = await era.result("tools/call", { name: "term_exec", arguments: args });
    expect(refusedAsked.resultType).toBe("input_required");
    const question = (Object.values(refusedAsked.inputRequests)[0] as Record<string, any>).params;
    expect(question.message).toContain("ptyhub guard");
    expect(question.message).toContain("git clean -fdx");
    await Bun.sleep(HUMAN_PAUSE_MS);
    const declined = (await era.answer("term_exec", args, refusedAsked, { action: "decline" })).result;
    expect(declined.isError).toBe(true);
    expect(declined.structuredContent.error.code).toBe("BLOCKED_BY_GUARD");
    expect(declined.structuredContent.error.message).not.toContain("Nobody was asked");
    expect(existsSync(file)).toBe(true);

    const asked = await era.result("tools/call", { name: "term_exec", arguments: args });
    expect(asked.resultType).toBe("input_required");
    const ran = (await era.answer("term_exec", args, asked, { action: "accept", content: { allow: true } })).result;
    expect(ran.resultType).toBe("complete");
    expect(ran.structuredContent).toMatchObject({ status: "done", exit_code: 0 });
    expect(existsSync(file)).toBe(false);
  });

  test("a refusal within milliseconds (claude -p, codex exec) says nobody was asked", async () => {
    const { dir, file } = repoWithUntracked();
    const args = { command: `cd ${dir} && git clean -fdx` };
    const asked = await era.result("tools/call", { name: "term_exec", arguments: args });
    const r = (await era.answer("term_exec", args, asked, { action: "cancel" })).result;
    expect(r.structuredContent.error.code).toBe("BLOCKED_BY_GUARD");
    expect(r.structuredContent.error.message).toContain("Nobody was asked");
    expect(r.structuredContent.error.message).toContain("answered on its own");
    expect(existsSync(file)).toBe(true);
  });

  test("a retry with other arguments is refused and the question stays open; an unknown state is refused", async () => {
    const { dir, file } = repoWithUntracked();
    const args = { command: `cd ${dir} && git clean -fdx`, timeout_ms: 30_000 };
    const asked = await era.result("tools/call", { name: "term_exec", arguments: args });
    const other = (
      await era.answer("term_exec", { command: "true" }, asked, { action: "accept", content: { allow: true } })
    ).result;
    expect(other.isError).toBe(true);
    expect(other.structuredContent.error.code).toBe("INVALID_ARGUMENT");
    expect(other.structuredContent.error.message).toContain("differ");
    expect(existsSync(file)).toBe(true);
    // Key order is the client's business: the same arguments reordered are the same call.
    const reordered = { timeout_ms: args.timeout_ms, command: args.command };
    const same = (await era.answer("term_exec", reordered, asked, { action: "accept", content: { allow: true } }))
      .result;
    expect(same.structuredContent).toMatchObject({ status: "done", exit_code: 0 });
    expect(existsSync(file)).toBe(false);

    const stale = (await era.answer("term_exec", args, asked, { action: "accept", content: { allow: true } })).result;
    expect(stale.isError).toBe(true);
    expect(stale.structuredContent.error.code).toBe("INVALID_ARGUMENT");
    expect(stale.structuredContent.error.message).toContain("no longer open");
    expect(stale.structuredContent.error.hint).toContain("Call term_exec again");
  });

  test("a client that declares no elicitation still gets ELICITATION_UNSUPPORTED with the attach hint", async () => {
    const mute = client({ elicitation: null });
    await mute.result("tools/call", { name: "term_exec", arguments: { command: "true" } });
    const r = await mute.result("tools/call", { name: "term_secret", arguments: { session: "main" } });
    expect(r.resultType).toBe("complete");
    expect(r.structuredContent.error.code).toBe("ELICITATION_UNSUPPORTED");
    expect(r.structuredContent.error.message).toContain("cannot ask the human");
    expect(r.structuredContent.error.hint).toContain("ptyhub attach main");
  });
});

describe("a question nobody answers", () => {
  test("is dismissed after task_ttl_ms: the call ends refused, nothing runs, a late retry is told so", async () => {
    const ttlMs = 1000;
    const forgetful = client({ env: { ...ENV, PTYHUB_TASK_TTL_MS: String(ttlMs), PTYHUB_LOG_LEVEL: "info" } });
    let stderr = "";
    void (async () => {
      for await (const chunk of forgetful.proc.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    const { dir, file } = repoWithUntracked();
    const args = { command: `cd ${dir} && git clean -fdx` };
    const asked = await forgetful.result("tools/call", { name: "term_exec", arguments: args });
    expect(asked.resultType).toBe("input_required");
    // The barrier: the server says it dismissed the question.
    await waitFor(() => stderr.includes("nobody answered its question within 1000 ms"), 20_000, "the dismissal");
    const late = (await forgetful.answer("term_exec", args, asked, { action: "accept", content: { allow: true } }))
      .result;
    expect(late.structuredContent.error.code).toBe("INVALID_ARGUMENT");
    expect(late.structuredContent.error.message).toContain("nobody answered it within 1 s");
    expect(existsSync(file)).toBe(true);
  });
});

describe("URL mode in the 2026-07-28 era", () => {
  test("a secret goes on ptyhub's one-time page; the client's accept carries no secret", async () => {
    const url = client({ elicitation: { form: {}, url: {} } });
    await url.result("tools/call", { name: "term_exec", arguments: { command: READ_SECRET } });
    const args = { session: "main" };
    const asked = await url.result("tools/call", { name: "term_secret", arguments: args });
    const params = (Object.values(asked.inputRequests)[0] as Record<string, any>).params;
    expect(params.mode).toBe("url");
    expect(params.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/);
    // The retry holds until the human has used the page.
    const retried = url.answer("term_secret", args, asked, { action: "accept" });
    const page = await fetch(params.url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(params.url).origin },
      body: new URLSearchParams({ secret: SECRET }).toString(),
    });
    expect(page.status).toBe(200);
    const done = (await retried).result;
    expect(text(done)).toBe("[secret typed into main]");
    const read = await url.result("tools/call", {
      name: "term_read",
      arguments: { session: "main", until: "got [0-9a-f]{16}", wait_ms: 20_000 },
    });
    expect(read.structuredContent.output).toContain(`got ${SECRET_SHA}`);
  });
});

describe("URL mode, a page nobody used", () => {
  test("the retry's accept meets an expired page: nobody typed it, with the attach hint; nothing typed", async () => {
    const late = client({ elicitation: { form: {}, url: {} }, env: { ...ENV, PTYHUB_SECRET_PAGE_TTL_MS: "1000" } });
    await late.result("tools/call", { name: "term_exec", arguments: { command: READ_SECRET } });
    const args = { session: "main" };
    const asked = await late.result("tools/call", { name: "term_secret", arguments: args });
    const url = (Object.values(asked.inputRequests)[0] as Record<string, any>).params.url as string;
    // The barrier: the page stops answering once it has expired.
    await waitFor(async () => (await fetch(url).catch(() => null))?.status !== 200, 20_000, "the page to expire");
    const r = (await late.answer("term_secret", args, asked, { action: "accept" })).result;
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toBe("ELICITATION_UNSUPPORTED");
    expect(r.structuredContent.error.message).toContain("one-time page expired unused");
    expect(r.structuredContent.error.hint).toContain("ptyhub attach main");
    const screen = await late.result("tools/call", {
      name: "term_read",
      arguments: { session: "main", mode: "screen" },
    });
    // Still at the prompt: the command line shows, no answer line does.
    expect(screen.structuredContent.output).toEndWith("Password:");
    expect(screen.structuredContent.output).not.toMatch(/^got /m);
  });
});

describe("through the daemon (persistent sessions)", () => {
  test("the daemon's guard question is asked the era's way and the answer reaches it", async () => {
    const daemonClient = client({ env: { PTYHUB_SHELL: "/bin/bash" } });
    const { dir, file } = repoWithUntracked();
    const args = { command: `cd ${dir} && git clean -fdx` };
    const asked = await daemonClient.result("tools/call", { name: "term_exec", arguments: args });
    expect(asked.resultType).toBe("input_required");
    expect(existsSync(file)).toBe(true);
    const ran = (await daemonClient.answer("term_exec", args, asked, { action: "accept", content: { allow: true } }))
      .result;
    expect(ran.structuredContent).toMatchObject({ status: "done", exit_code: 0 });
    expect(existsSync(file)).toBe(false);
  });
});

describe("2025-11-25 era beside it", () => {
  test("the same guard question is a server-initiated elicitation/create, as before", async () => {
    const old = await startMcp({ env: ENV, elicit: () => ({ action: "accept", content: { allow: true } }) });
    try {
      const { dir, file } = repoWithUntracked();
      const r = await old.call("term_exec", { command: `cd ${dir} && git clean -fdx` });
      expect(old.elicitations).toHaveLength(1);
      expect(old.elicitations[0]!.message).toContain("ptyhub guard");
      expect(r.data).toMatchObject({ status: "done", exit_code: 0 });
      expect(existsSync(file)).toBe(false);
    } finally {
      await old.close();
    }
  });
});
