/**
 * The one-time secret page's own checks (src/mcp/secret-page/one-time-page.ts), request by request:
 * what a browser on another site, a rebound host name, or a second submission gets.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { openSecretPage, type SecretPage } from "../../src/mcp/secret-page/one-time-page.ts";

const FIELDS = [{ key: "secret", title: "Secret <b>" }];
/** Long enough never to expire during a test; expiry itself is covered end to end (e2e/secret-url). */
const TTL_MS = 600_000;

let page: SecretPage | null = null;
afterEach(() => page?.close());

function form(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin, ...headers },
    body,
  });
}

describe("one-time secret page", () => {
  test("listens on loopback only, escapes what it shows, sends a CSP and no CORS headers", async () => {
    page = openSecretPage({ message: "for <script>alert(1)</script>", fields: FIELDS, ttlMs: TTL_MS });
    expect(new URL(page.url).hostname).toBe("127.0.0.1");
    const r = await fetch(page.url, { headers: { Origin: "http://evil.example" } });
    const html = await r.text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&#60;script&#62;");
    expect(html).toContain("Secret &#60;b&#62;");
    expect(r.headers.get("content-security-policy")).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect([...r.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  test("refuses another host name, a foreign origin, other content types and methods; none uses the page", async () => {
    page = openSecretPage({ message: "m", fields: FIELDS, ttlMs: TTL_MS });
    const port = new URL(page.url).port;
    const rebound = await fetch(page.url, { headers: { Host: `attacker.example:${port}` } });
    expect(rebound.status).toBe(421);
    expect((await form(page.url, "secret=x", { Origin: "null" })).status).toBe(403);
    expect((await form(page.url, "secret=x", { "Sec-Fetch-Site": "same-site" })).status).toBe(403);
    const json = await fetch(page.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: new URL(page.url).origin },
      body: JSON.stringify({ secret: "x" }),
    });
    expect(json.status).toBe(415);
    expect((await fetch(page.url, { method: "PUT", body: "secret=x" })).status).toBe(405);
    expect((await form(page.url, "other=x")).status).toBe(400);
    // Still unused: the right submission is accepted, exactly as typed.
    expect((await form(page.url, "secret=%20a%26b%3D%20")).status).toBe(200);
    expect(await page.answer).toEqual({ secret: " a&b= " });
  });

  test("two submissions at once: one is taken, the other refused", async () => {
    page = openSecretPage({ message: "m", fields: FIELDS, ttlMs: TTL_MS });
    const statuses = await Promise.all([
      form(page.url, "secret=first").then((r) => r.status),
      form(page.url, "secret=second").then(
        (r) => r.status,
        () => 0, // no longer listening
      ),
    ]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(await page.answer).toEqual({ secret: statuses[0] === 200 ? "first" : "second" });
  });

  test("closed unanswered: the answer is null and the page is gone", async () => {
    page = openSecretPage({ message: "m", fields: FIELDS, ttlMs: TTL_MS });
    const url = page.url;
    page.close();
    expect(await page.answer).toBeNull();
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    expect(status === 0 || status === 410).toBe(true);
  });
});
