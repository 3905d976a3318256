/**
 * term_secret through URL-mode elicitation (issue 23 item 9): the real SDK client declares
 * `elicitation.url`, gets ptyhub's one-time loopback page instead of a form, and the test plays the
 * human: it opens the page and posts the secret. The program receives it; no tool result, server
 * log, audit or other file shows it; a wrong token, a foreign origin, a second post and an expired
 * page are refused. A client with forms only gets the labelled form fallback.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { stopDaemon } from "../helpers/daemon.ts";

const URL_CAPABILITIES = { elicitation: { form: {}, url: {} } };
// Made at run time, so that no source or compiled file holds it and any file that does leaked it.
const SECRET = `url-mode-${randomBytes(9).toString("base64url")}`;
/** The program: reads a hidden line, then proves what it got without printing it. */
const PROGRAM =
  "python3 -c \"import getpass, hashlib; s = getpass.getpass('Password: '); " +
  "print('got', len(s), hashlib.sha256(s.encode()).hexdigest()[:16], flush=True); input()\"";

/** Opens a shell session and starts the program in it; returns once it asks for the password. */
async function atPasswordPrompt(
  call: (name: string, args: Record<string, unknown>) => Promise<unknown>,
  session: string,
): Promise<void> {
  await call("term_open", { name: session, command: "bash", args: ["--norc"] });
  // term_send waits for output newer than itself: the prompt the program prints after this line.
  await call("term_send", { session, text: PROGRAM, until: "Password:", wait_ms: 20_000 });
}

const servers: StdioMcp[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  await stopDaemon();
});

/** Every regular file under the test's isolated HOME, XDG directories and TMPDIR. */
function filesUnderTestRoot(): string[] {
  const roots = ["HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "TMPDIR"]
    .map((v) => process.env[v])
    .filter((d): d is string => !!d);
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else if (st?.isFile()) out.push(p);
    }
  };
  for (const r of new Set(roots)) walk(r);
  return out;
}

/** Posts the page's form as a browser on the page itself would. */
function post(url: string, body: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin, ...headers },
    body: new URLSearchParams(body).toString(),
  });
}

/** A request to a page that is gone: refused by status, or no longer listening at all. */
async function refused(request: Promise<Response>): Promise<boolean> {
  try {
    const r = await request;
    await r.text();
    return r.status >= 400;
  } catch {
    return true;
  }
}

async function start(
  env: Record<string, string> = {},
  capabilities: Record<string, unknown> = URL_CAPABILITIES,
): Promise<StdioMcp> {
  const s = await startMcp({ env: { PTYHUB_LOG_LEVEL: "debug", ...env }, capabilities });
  servers.push(s);
  return s;
}

describe("term_secret over URL-mode elicitation", () => {
  test("the human types it on ptyhub's loopback page; it reaches the program and nothing else", async () => {
    const s = await start();
    const stderr: string[] = [];
    s.transport.stderr?.on("data", (d: Buffer) => stderr.push(d.toString()));
    const asked: ElicitRequest["params"][] = [];
    let pageUrl = "";
    let pageDone!: () => void;
    const pageUsed = new Promise<void>((resolve) => (pageDone = resolve));
    const completed: string[] = [];
    s.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => {
      completed.push(n.params.elicitationId);
    });
    const human = async (url: string) => {
      const page = await fetch(url);
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(page.headers.get("content-security-policy")).toContain("form-action 'self'");
      expect(page.headers.get("access-control-allow-origin")).toBeNull();
      expect(html).toContain('type="password"');
      expect(html).toContain("sudo password for the test");
      const wrong = url.replace(/[^/]{8}$/, "AAAAAAAA");
      expect((await post(wrong, { secret: "wrong" })).status).toBe(404);
      expect((await post(url, { secret: "evil" }, { Origin: "http://evil.example" })).status).toBe(403);
      expect((await post(url, { secret: "evil" }, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
      const cors = await fetch(url, { method: "OPTIONS", headers: { Origin: "http://evil.example" } });
      expect(cors.headers.get("access-control-allow-origin")).toBeNull();
      // A program inside a ptyhub session (the agent's own) cannot answer for the human.
      const curl =
        `curl -s -o /dev/null -w 'code=%{http_code}\\n' -X POST -H 'Origin: ${new URL(url).origin}' ` +
        `-H 'Content-Type: application/x-www-form-urlencoded' --data 'secret=from-a-session' '${url}'`;
      const inside = await s.ok("term_exec", { command: curl });
      expect(inside.output).toContain("code=403");
      const sent = await post(url, { secret: SECRET });
      expect(sent.status).toBe(200);
      await sent.text();
      pageDone();
    };
    s.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      if (req.params.mode === "url") {
        pageUrl = req.params.url;
        void human(req.params.url);
      }
      return { action: "accept" };
    });

    const results: CallToolResult[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await s.raw(name, args);
      results.push(r);
      expect(r.isError).toBeFalsy();
      return r.structuredContent as Record<string, any>;
    };
    await atPasswordPrompt(call, "pw");
    const typed = await call("term_secret", { session: "pw", prompt: "sudo password for the test" });
    expect(typed).toMatchObject({ session: "pw", sent: true, action: "accept" });
    await pageUsed;

    const digest = new Bun.CryptoHasher("sha256").update(SECRET).digest("hex").slice(0, 16);
    const read = await call("term_read", { session: "pw", until: "got \\d+", wait_ms: 20_000 });
    expect(read.output).toContain(`got ${SECRET.length} ${digest}`);

    // The client was sent the page, not a form; the page is on loopback with a long random token.
    expect(asked).toHaveLength(1);
    expect(asked[0]!.mode).toBe("url");
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\/[A-Za-z0-9_-]{43}$/);
    expect(completed).toHaveLength(1);
    // Used once: a second post (even from the page) is refused, and the program got one line only.
    expect(await refused(post(pageUrl, { secret: "again" }))).toBe(true);

    await call("term_close", { session: "pw" });
    await s.close();
    await stopDaemon();
    const seen = [JSON.stringify(results), JSON.stringify(asked), stderr.join("")];
    for (const text of seen) expect(text).not.toContain(SECRET);
    const files = filesUnderTestRoot();
    expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true); // the audit trail was written
    for (const f of files) expect({ file: f, has: readFileSync(f).includes(SECRET) }).toEqual({ file: f, has: false });
  }, 60_000);

  test("an expired page: the call says nobody typed it, the link is refused, nothing was typed", async () => {
    const s = await start({ PTYHUB_SECRET_PAGE_TTL_MS: "1000" });
    let pageUrl = "";
    s.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      if (req.params.mode === "url") pageUrl = req.params.url;
      return { action: "accept" };
    });
    await atPasswordPrompt(s.call, "late");
    // The human never opens the page: the call ends when it expires.
    const r = await s.raw("term_secret", { session: "late" });
    expect(r.isError).toBe(true);
    const err = (r.structuredContent as { error: { code: string; message: string; hint: string } }).error;
    expect(err.code).toBe("ELICITATION_UNSUPPORTED");
    expect(err.message).toContain("one-time page expired unused");
    expect(err.hint).toContain("ptyhub attach late");
    expect(pageUrl).not.toBe("");
    expect(await refused(fetch(pageUrl))).toBe(true);
    expect(await refused(post(pageUrl, { secret: SECRET }))).toBe(true);
    const screen = await s.ok("term_read", { session: "late", mode: "screen" });
    expect(screen.output).not.toContain("got ");
    await s.ok("term_close", { session: "late" });
  }, 60_000);

  test("a client with forms only gets the form, labelled as the fallback", async () => {
    const s = await start({}, { elicitation: { form: {} } });
    const asked: ElicitRequest["params"][] = [];
    s.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return { action: "accept", content: { secret: SECRET } };
    });
    await atPasswordPrompt(s.call, "form");
    expect((await s.ok("term_secret", { session: "form" })).sent).toBe(true);
    const read = await s.ok("term_read", { session: "form", until: "got \\d+", wait_ms: 20_000 });
    expect(read.output).toContain(`got ${SECRET.length}`);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.mode ?? "form").toBe("form");
    expect(asked[0]!.message).toContain("Form fallback");
    await s.ok("term_close", { session: "form" });
  }, 60_000);
});
