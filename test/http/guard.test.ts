/**
 * The HTTP transport's gatekeepers on their own: which Origin and Host a server accepts (DNS
 * rebinding), how the token is matched, and the token file (created once, 0600, reused, made
 * private again if loosened, refused when too short).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGuard } from "../../src/mcp/http-guard.ts";
import { bearerMatches, resolveHttpToken, tokenFilePath } from "../../src/config/http-token.ts";

const req = (headers: Record<string, string>) => new Request("http://127.0.0.1:7000/mcp", { method: "POST", headers });

describe("Origin and Host", () => {
  const guard = createGuard({ host: "127.0.0.1", port: 7000, tls: false, extraOrigins: ["https://ide.example.com"] });

  test("the server's own loopback origins and configured ones pass; any other origin is refused", () => {
    for (const origin of [
      "http://127.0.0.1:7000",
      "http://localhost:7000",
      "http://[::1]:7000",
      "https://ide.example.com",
    ]) {
      expect(guard.refusal(req({ origin, host: "127.0.0.1:7000" }))).toBeNull();
    }
    for (const origin of ["http://evil.example", "http://127.0.0.1:7001", "https://127.0.0.1:7000", "null"]) {
      expect(guard.refusal(req({ origin, host: "127.0.0.1:7000" }))).toContain("origin");
    }
    expect(guard.refusal(req({ host: "127.0.0.1:7000" }))).toBeNull(); // no Origin: not a browser page
  });

  test("a loopback server answers only to loopback host names (a rebound name is refused)", () => {
    expect(guard.refusal(req({ host: "localhost:7000" }))).toBeNull();
    expect(guard.refusal(req({ host: "evil.example:7000" }))).toContain("host");
    expect(guard.refusal(req({ host: "127.0.0.1:7001" }))).toContain("host");
  });

  test("a server on another address accepts its own origin, and leaves Host to the proxy in front", () => {
    const g = createGuard({ host: "10.1.2.3", port: 443, tls: true, extraOrigins: [] });
    // 443 is https's default port: browsers leave it out of the origin.
    expect(g.refusal(req({ origin: "https://10.1.2.3", host: "tunnel.example" }))).toBeNull();
    expect(g.refusal(req({ origin: "http://127.0.0.1:443" }))).toContain("origin");
    const v6 = createGuard({ host: "::1", port: 7000, tls: false, extraOrigins: [] });
    expect(v6.refusal(req({ origin: "http://[::1]:7000", host: "[::1]:7000" }))).toBeNull();
  });
});

describe("bearer token", () => {
  test("only the exact token, with the Bearer scheme, matches", () => {
    const token = "a".repeat(43);
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true); // the scheme is case-insensitive
    expect(bearerMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(bearerMatches(`Bearer ${token.slice(1)}`, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
    expect(bearerMatches(`Basic ${token}`, token)).toBe(false);
    expect(bearerMatches("Bearer ", token)).toBe(false);
    expect(bearerMatches(null, token)).toBe(false);
  });

  describe("the token file", () => {
    let saved: string | undefined;
    beforeEach(() => {
      saved = process.env.XDG_STATE_HOME;
      process.env.XDG_STATE_HOME = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "token-"));
    });
    afterEach(() => {
      process.env.XDG_STATE_HOME = saved;
    });

    test("generated once (256 bits, 0600), then reused; loosened permissions are tightened again", () => {
      const first = resolveHttpToken({});
      expect(first).toMatchObject({ source: "file", created: true, path: tokenFilePath() });
      expect(Buffer.from(first.token, "base64url").length).toBe(32);
      expect(statSync(first.path!).mode & 0o777).toBe(0o600);
      chmodSync(first.path!, 0o644);
      const second = resolveHttpToken({});
      expect(second).toMatchObject({ token: first.token, created: false });
      expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    });

    test("PTYHUB_HTTP_TOKEN wins; a short token, from either place, is refused", () => {
      const token = "z".repeat(40);
      expect(resolveHttpToken({ PTYHUB_HTTP_TOKEN: token })).toMatchObject({ token, source: "env", path: null });
      expect(() => resolveHttpToken({ PTYHUB_HTTP_TOKEN: "short" })).toThrow("shorter than");
      writeFileSync(tokenFilePath(), "tiny\n", { mode: 0o600 });
      expect(() => resolveHttpToken({})).toThrow("shorter than");
    });
  });
});
