/**
 * Logging in to the web view (issue 38): `ptyhub serve` prints a one-time link holding a login
 * code; opening it trades the code for a cookie (HttpOnly, SameSite=Strict) and the browser is sent
 * on to `/`, so neither the bearer token nor a usable code is ever in a URL the browser keeps. A
 * code works once and expires; codes and cookies are kept as SHA-256 digests, so looking one up
 * leaks nothing through timing and a memory dump holds nothing that logs in.
 */
import { createHash, randomBytes } from "node:crypto";

/** Random bytes in a login code and in a cookie: 256 bits, as unguessable as the bearer token. */
const SECRET_BYTES = 32;
/** An unused login link stops working after this long. */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** A browser stays logged in this long after its login. */
export const WEB_SESSION_TTL_MS = 12 * 60 * 60_000;
/** Unredeemed codes kept at most (a `ptyhub web` loop must not grow memory without bound). */
const MAX_CODES = 64;
export const COOKIE_NAME = "ptyhub_web";
export const LOGIN_PATH = "/login";

function digest(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

function expireFrom(map: Map<string, number>, now: number): void {
  for (const [k, until] of map) if (until <= now) map.delete(k);
}

export class WebLogin {
  private readonly codes = new Map<string, number>();
  private readonly cookies = new Map<string, number>();

  /** A new single-use login code. */
  newCode(): string {
    const now = Date.now();
    expireFrom(this.codes, now);
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value ?? "");
    const code = randomBytes(SECRET_BYTES).toString("base64url");
    this.codes.set(digest(code), now + LOGIN_CODE_TTL_MS);
    return code;
  }

  /** The cookie value `code` logs in with, or null (unknown, used or expired). The code is spent. */
  redeem(code: string): string | null {
    const key = digest(code);
    const until = this.codes.get(key);
    this.codes.delete(key);
    const now = Date.now();
    if (until === undefined || until <= now) return null;
    expireFrom(this.cookies, now);
    const cookie = randomBytes(SECRET_BYTES).toString("base64url");
    this.cookies.set(digest(cookie), now + WEB_SESSION_TTL_MS);
    return cookie;
  }

  /** Whether the request carries a live login cookie. */
  loggedIn(req: Request): boolean {
    const value = cookieValue(req.headers.get("cookie"), COOKIE_NAME);
    if (value === null) return false;
    const until = this.cookies.get(digest(value));
    return until !== undefined && until > Date.now();
  }
}

/** The Set-Cookie header for a login: never readable by script, never sent from another site. */
export function loginCookie(value: string, secure: boolean): string {
  const maxAge = Math.floor(WEB_SESSION_TTL_MS / 1000);
  return `${COOKIE_NAME}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

export function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
