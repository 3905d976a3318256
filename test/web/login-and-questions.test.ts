/**
 * The web view's login codes and cookies (single use, expiry) and its pending guard questions
 * (answered, withdrawn, refused when not a yes/no), on their own, with the clock moved by the test.
 */
import { afterEach, describe, expect, test, setSystemTime } from "bun:test";
import { COOKIE_NAME, LOGIN_CODE_TTL_MS, loginCookie, WEB_SESSION_TTL_MS, WebLogin } from "../../src/web/login.ts";
import { PendingQuestions, WATCHED_WITHIN_MS } from "../../src/web/questions.ts";

const withCookie = (value: string) =>
  new Request("http://127.0.0.1/", { headers: { cookie: `a=b; ${COOKIE_NAME}=${value}` } });
const YES_NO = { type: "object", properties: { allow: { type: "boolean" } } };

afterEach(() => setSystemTime());

describe("login", () => {
  test("a code logs in once; the cookie it gives is accepted, others are not", () => {
    const login = new WebLogin();
    const code = login.newCode();
    const cookie = login.redeem(code);
    expect(cookie).not.toBeNull();
    expect(login.redeem(code)).toBeNull();
    expect(login.loggedIn(withCookie(cookie!))).toBe(true);
    expect(login.loggedIn(withCookie(`${cookie}x`))).toBe(false);
    expect(login.loggedIn(new Request("http://127.0.0.1/"))).toBe(false);
    expect(login.redeem("made-up")).toBeNull();
  });

  test("an unused code expires, and so does a login", () => {
    const login = new WebLogin();
    const start = Date.now();
    const late = login.newCode();
    const cookie = login.redeem(login.newCode())!;
    setSystemTime(new Date(start + LOGIN_CODE_TTL_MS + 1));
    expect(login.redeem(late)).toBeNull();
    expect(login.loggedIn(withCookie(cookie))).toBe(true);
    setSystemTime(new Date(start + WEB_SESSION_TTL_MS + 1));
    expect(login.loggedIn(withCookie(cookie))).toBe(false);
  });

  test("the cookie is HttpOnly and SameSite=Strict, and Secure over TLS", () => {
    expect(loginCookie("v", false)).toContain("HttpOnly; SameSite=Strict");
    expect(loginCookie("v", false)).not.toContain("Secure");
    expect(loginCookie("v", true)).toEndWith("; Secure");
  });
});

describe("pending questions", () => {
  test("approve gives every boolean field true; decline declines; the question is then gone", async () => {
    const q = new PendingQuestions();
    const asked = q.ask("rm it?", YES_NO, "agent");
    const [one] = q.list();
    expect(one?.message).toBe("rm it?");
    expect(q.answer(one!.id, true)).toBe(true);
    expect(await asked).toEqual({ action: "accept", content: { allow: true } });
    expect(q.list()).toEqual([]);
    expect(q.answer(one!.id, false)).toBe(false);
    const declined = q.ask("again?", YES_NO, "agent");
    q.answer(q.list()[0]!.id, false);
    expect(await declined).toEqual({ action: "decline" });
  });

  test("a question that is not a yes/no is refused; a cancelled call withdraws its question", async () => {
    const q = new PendingQuestions();
    const secret = { type: "object", properties: { passphrase: { type: "string" } } };
    await expect(q.ask("passphrase?", secret, "agent")).rejects.toThrow("yes/no");
    const abort = new AbortController();
    const asked = q.ask("rm it?", YES_NO, "agent", abort.signal);
    abort.abort();
    await expect(asked).rejects.toThrow("nobody answered");
    expect(q.list()).toEqual([]);
  });

  test("a view counts as watching for a few seconds after it looked", () => {
    const q = new PendingQuestions();
    expect(q.watched()).toBe(false);
    q.list();
    expect(q.watched()).toBe(true);
    setSystemTime(new Date(Date.now() + WATCHED_WITHIN_MS + 1));
    expect(q.watched()).toBe(false);
  });
});
