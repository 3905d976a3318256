/**
 * The web view in a real browser (issue 38): a real `ptyhub serve --http` on an ephemeral loopback
 * port, headless chromium logging in by the link the server printed, watching a session an agent
 * (a real MCP client over HTTP) drives, taking it over and typing into it, resizing it, approving
 * a guard question the agent's client could not ask, and playing the session's recording. What
 * the page shows is compared with the screen ptyhub reports through term_read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { httpFixture, type HttpServerProc } from "../http/helpers.ts";
import type { McpClient } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { browserPid, HAVE_CHROMIUM, launchBrowser, NO_CHROMIUM_WHY, screenshotPath, terminalRows } from "./browser.ts";

/** How long the page may take to show what the session did, on a loaded 2-core machine. */
const SHOWN_WITHIN_MS = 20_000;
const SESSION = "webtest";
/** Stopped by the guard (chmod-recursive-root), and harmless when approved: the directory is not there. */
const GUARDED = "chmod -R 777 /nonexistent-ptyhub-web-test";

const fx = httpFixture();
let server: HttpServerProc;
let agent: McpClient;
let browser: Browser;
let page: Page;

async function pageText(selector: string): Promise<string> {
  return String(await page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? ""`));
}

async function shows(selector: string, text: string): Promise<void> {
  await waitFor(
    async () => (await terminalRows(page, selector)).join("\n").includes(text),
    SHOWN_WITHIN_MS,
    async () => `'${text}' in ${selector}; it shows:\n${(await terminalRows(page, selector)).join("\n")}`,
  );
}

async function shot(name: string): Promise<void> {
  const path = screenshotPath(name);
  if (path) await page.screenshot({ path: path as `${string}.png` });
}

describe.skipIf(!HAVE_CHROMIUM)(`web view in chromium (${HAVE_CHROMIUM ? "chromium found" : NO_CHROMIUM_WHY})`, () => {
  beforeAll(async () => {
    const env = fx.env();
    mkdirSync(join(env.XDG_CONFIG_HOME!, "ptyhub"), { recursive: true });
    writeFileSync(
      join(env.XDG_CONFIG_HOME!, "ptyhub", "config.json"),
      JSON.stringify({ shell: "/bin/bash", audit: { recording: true } }),
    );
    server = await fx.server(env);
    // An agent whose client cannot ask the human (no elicitation capability).
    agent = await fx.client(server, "agent-without-elicitation");
    await agent.ok("term_open", { name: SESSION, cols: 80, rows: 24 });
    await agent.ok("term_exec", { session: SESSION, command: "echo hello-from-agent" });
    browser = await launchBrowser();
    page = await browser.newPage();
  });

  afterAll(async () => {
    const pid = browser ? browserPid(browser) : null;
    await browser?.close();
    if (pid !== null) await waitFor(() => !alive(pid), 10_000, `chromium ${pid} to exit`);
    await fx.cleanup();
  });

  test("the printed one-time link logs in; the code leaves the address bar and works only once", async () => {
    const link = /web view .*: (http:\/\/\S+)$/m.exec(server.banner)?.[1];
    expect(link).toBeDefined();
    await page.goto(link!);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(page.url()).not.toContain("code=");
    const cookies = await browser.cookies();
    const login = cookies.find((c) => c.name === "ptyhub_web");
    expect(login?.httpOnly).toBe(true);
    expect(login?.sameSite).toBe("Strict");
    // The same link again: refused (the code was spent).
    const again = await fetch(link!, { redirect: "manual" });
    expect(again.status).toBe(403);
  });

  test("a link followed from another site's page logs in too (no redirect the Strict cookie would miss)", async () => {
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async () => {
        const res = await fetch(`${new URL(server.url).origin}/login/new`, {
          method: "POST",
          headers: { Authorization: `Bearer ${server.token}` },
        });
        const { url } = (await res.json()) as { url: string };
        return new Response(`<!doctype html><a id="go" href="${url}">open ptyhub</a>`, {
          headers: { "Content-Type": "text/html" },
        });
      },
    });
    const fresh = await browser.createBrowserContext();
    try {
      const p = await fresh.newPage();
      // localhost is another site than 127.0.0.1 (the link's): the click is a cross-site navigation.
      await p.goto(`http://localhost:${other.port}/`);
      await Promise.all([p.waitForNavigation(), p.click("#go")]);
      await p.waitForSelector("#sessions", { timeout: SHOWN_WITHIN_MS });
      expect(new URL(p.url()).pathname).toBe("/");
    } finally {
      await fresh.close();
      other.stop(true);
    }
  });

  test("the session list shows the agent's session; its live terminal matches term_read's screen", async () => {
    await page.waitForSelector(`#sessions tr[data-session="${SESSION}"]`, { timeout: SHOWN_WITHIN_MS });
    await page.click(`#sessions tr[data-session="${SESSION}"]`);
    await shows("#terminal", "hello-from-agent");
    // Live: what the agent runs now appears without a reload.
    await agent.ok("term_exec", { session: SESSION, command: "echo second-line-$((6*7))" });
    await shows("#terminal", "second-line-42");
    const screen = (await agent.ok("term_read", { session: SESSION, mode: "screen" })).output as string;
    const reported = screen.split("\n").map((l) => l.trimEnd());
    const meaningful = (lines: string[]) => lines.filter((l) => l.trim() !== "");
    // The page may show the output a moment before the prompt after it: it catches up.
    const caughtUp = async () => {
      const shown = meaningful(await terminalRows(page, "#terminal"));
      return JSON.stringify(shown) === JSON.stringify(meaningful(reported)) ? shown : null;
    };
    const shown = await waitFor(caughtUp, SHOWN_WITHIN_MS, "the page to show term_read's screen").catch(async () =>
      meaningful(await terminalRows(page, "#terminal")),
    );
    expect(shown).toEqual(meaningful(reported));
    expect(await pageText("#mode")).toBe("read-only");
    await shot("web-view-live.png");
  });

  test("take over: what the human types runs in the session, and the trail says the human typed it", async () => {
    await page.click("#takeover");
    await waitFor(async () => (await pageText("#mode")).includes("typing"), SHOWN_WITHIN_MS, "take-over mode");
    await page.click("#terminal");
    await page.keyboard.type("echo human-$((20+3))\n");
    await shows("#terminal", "human-23");
    const typed = await waitFor(
      async () => {
        const r = await page.evaluate(`fetch("/api/audit/${SESSION}").then((r) => r.json()).then((j) => j.entries)`);
        return (r as { event: string; who: string; via: string; text?: string }[]).find(
          (e) => e.event === "typed" && e.who === "human (web view)" && e.text?.includes("human-$((20+3))"),
        );
      },
      SHOWN_WITHIN_MS,
      "the human's line in the audit trail",
    );
    expect(typed.via).toBe("web");
    const screen = (await agent.ok("term_read", { session: SESSION, mode: "screen" })).output as string;
    expect(screen).toContain("human-23");
  });

  test("resize: the session takes the size the human sets", async () => {
    await page.evaluate(`document.getElementById("cols").value = "100"; document.getElementById("rows").value = "30"`);
    await page.click("#resize");
    await waitFor(
      async () => {
        const listed = (await agent.ok("term_list", {})).sessions as { session: string; cols: number; rows: number }[];
        const s = listed.find((x) => x.session === SESSION);
        return s?.cols === 100 && s.rows === 30;
      },
      SHOWN_WITHIN_MS,
      "the session at 100x30",
    );
    const shownRows = () => page.evaluate(`document.querySelectorAll("#terminal .xterm-rows > div").length`);
    expect(await shownRows()).toBe(30);
    // A resize the view did not make (the agent's term_resize): the view follows it.
    await agent.ok("term_resize", { session: SESSION, cols: 90, rows: 26 });
    await waitFor(async () => (await shownRows()) === 26, SHOWN_WITHIN_MS, "the view at the agent's 26 rows");
  });

  test("a guard question the agent's client cannot ask waits in the web view; approving it runs the line", async () => {
    const call = agent.call("term_exec", { session: SESSION, command: GUARDED });
    await page.waitForSelector("#question-list li button.approve", { timeout: SHOWN_WITHIN_MS });
    expect(await pageText("#question-list")).toContain(GUARDED);
    await shot("web-view-question.png");
    await page.click("#question-list li button.approve");
    const r = await call;
    expect(r.isError).toBe(false);
    expect(r.data.exit_code).toBe(1); // chmod ran: the directory is not there.
    await waitFor(async () => (await pageText("#question-list")) === "", SHOWN_WITHIN_MS, "the question gone");
  });

  test("the recording plays back what the session showed", async () => {
    await page.click("#tab-recording");
    await page.click("#play");
    await waitFor(async () => (await pageText("#play-state")) === "played", SHOWN_WITHIN_MS, "the recording played");
    const played = (await terminalRows(page, "#cast-terminal")).join("\n");
    expect(played).toContain("hello-from-agent");
    expect(played).toContain("second-line-42");
    expect(played).toContain("human-23");
    await shot("web-view-recording.png");
    await page.click("#tab-audit");
    await waitFor(async () => (await pageText("#audit")).includes("human"), SHOWN_WITHIN_MS, "the trail shown");
    await shot("web-view-audit.png");
  });
});
