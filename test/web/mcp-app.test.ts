/**
 * The MCP Apps view (issue 38) as a host shows it: a client declaring the extension finds the view
 * on term_open/term_exec and reads the ui:// resource; a test host page built with the ext-apps
 * SDK's host side (app-host/host.js) renders it in a sandboxed iframe in headless chromium and
 * forwards its tool calls to a real `ptyhub serve --http`. The view shows the session's screen as
 * term_read reports it, its state and last exit code, and types into it only once taken over.
 * A client without the extension sees nothing new.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Frame, Page } from "puppeteer-core";
import { httpFixture, type HttpServerProc } from "../http/helpers.ts";
import type { McpClient } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { browserPid, HAVE_CHROMIUM, launchBrowser, NO_CHROMIUM_WHY, screenshotPath } from "./browser.ts";

const VIEW_URI = "ui://ptyhub/terminal.html";
const APP_MIME = "text/html;profile=mcp-app";
const APPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [APP_MIME] } } };
const SESSION = "appview";
/** How long the view may take to show what the session did, on a loaded 2-core machine. */
const SHOWN_WITHIN_MS = 20_000;

const fx = httpFixture();
let server: HttpServerProc;
let host: McpClient;
let plain: McpClient;

beforeAll(async () => {
  server = await fx.server(fx.env({ SHELL: "/bin/bash" }));
  host = await fx.client(server, "apps-host", APPS);
  plain = await fx.client(server, "plain-client");
});
afterAll(() => fx.cleanup());

describe("the view in the MCP listing", () => {
  test("a client with MCP Apps finds the view on term_open and term_exec, and reads it", async () => {
    const { tools } = await host.client.listTools();
    const ui = (name: string) =>
      (tools.find((t) => t.name === name)?._meta?.ui as { resourceUri?: string })?.resourceUri;
    expect(ui("term_open")).toBe(VIEW_URI);
    expect(ui("term_exec")).toBe(VIEW_URI);
    expect(ui("term_read")).toBeUndefined();
    const { resources } = await host.client.listResources();
    expect(resources.find((r) => r.uri === VIEW_URI)?.mimeType).toBe(APP_MIME);
    const read = await host.client.readResource({ uri: VIEW_URI });
    const html = String((read.contents[0] as { text?: string }).text);
    expect(read.contents[0]?.mimeType).toBe(APP_MIME);
    expect(html).toStartWith("<!doctype html>");
    expect(html).not.toMatch(/<script[^>]*\bsrc=/); // all inline: the iframe may load nothing
  });

  test("a client without MCP Apps sees nothing new", async () => {
    const { tools } = await plain.client.listTools();
    expect(tools.some((t) => t._meta?.ui !== undefined)).toBe(false);
    const { resources } = await plain.client.listResources();
    expect(resources.some((r) => r.uri.startsWith("ui://"))).toBe(false);
  });
});

describe.skipIf(!HAVE_CHROMIUM)(
  `the view in a host page in chromium (${HAVE_CHROMIUM ? "found" : NO_CHROMIUM_WHY})`,
  () => {
    let browser: Browser;
    let page: Page;
    let site: ReturnType<typeof Bun.serve>;
    let view: Frame;

    const rows = async (): Promise<string[]> =>
      (
        (await view.evaluate(
          `[...document.querySelectorAll("#terminal .xterm-rows > div")].map((r) => r.textContent)`,
        )) as string[]
      ).map((r) => r.replace(/\u00a0/g, " ").trimEnd());
    const text = async (id: string) =>
      String(await view.evaluate(`document.getElementById(${JSON.stringify(id)}).textContent`));
    const screen = async () => (await host.ok("term_read", { session: SESSION, mode: "screen" })).output as string;

    beforeAll(async () => {
      const built = await Bun.build({ entrypoints: [join(import.meta.dir, "app-host", "host.js")], target: "browser" });
      if (!built.success) throw new Error(built.logs.map(String).join("\n"));
      const hostJs = await built.outputs[0]!.text();
      // The host page, on a loopback port of its own (another origin than ptyhub's).
      site = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (req) =>
          new URL(req.url).pathname === "/host.js"
            ? new Response(hostJs, { headers: { "Content-Type": "text/javascript" } })
            : new Response('<!doctype html><body><script type="module" src="/host.js"></script></body>', {
                headers: { "Content-Type": "text/html" },
              }),
      });
      await host.ok("term_open", { name: SESSION, cols: 80, rows: 24 });
      const args = { session: SESSION, command: "echo from-the-agent; false" };
      const result = await host.client.callTool({ name: "term_exec", arguments: args });
      const html = String(((await host.client.readResource({ uri: VIEW_URI })).contents[0] as { text?: string }).text);
      browser = await launchBrowser();
      page = await browser.newPage();
      await page.exposeFunction("viewData", () => ({ html, args, result }));
      await page.exposeFunction("callPtyhub", (name: string, a: Record<string, unknown>) =>
        host.client.callTool({ name, arguments: a }),
      );
      await page.goto(`http://127.0.0.1:${site.port}/`);
      await page.waitForFunction("typeof window.startView === 'function'");
      await page.evaluate("window.startView()");
      await page.waitForFunction("window.viewStarted === true", { timeout: SHOWN_WITHIN_MS });
      view = page.frames().find((f) => f !== page.mainFrame())!;
    });

    afterAll(async () => {
      const pid = browser ? browserPid(browser) : null;
      await browser?.close();
      if (pid !== null) await waitFor(() => !alive(pid), 10_000, `chromium ${pid} to exit`);
      site?.stop(true);
    });

    test("shows the session's screen as term_read reports it, its state and last exit code", async () => {
      await waitFor(
        async () => (await rows()).join("\n").includes("from-the-agent"),
        SHOWN_WITHIN_MS,
        "the agent's line",
      );
      await waitFor(async () => (await text("exit")) === "exit 1", SHOWN_WITHIN_MS, "the last exit code");
      expect(await text("session")).toBe(SESSION);
      expect(await text("state")).toBe("prompt");
      const meaningful = (lines: string[]) => lines.filter((l) => l.trim() !== "");
      expect(meaningful(await rows())).toEqual(meaningful((await screen()).split("\n").map((l) => l.trimEnd())));
      // Live: what the agent does next shows without the host doing anything.
      await host.ok("term_exec", { session: SESSION, command: "echo later-$((40+2))" });
      await waitFor(async () => (await rows()).join("\n").includes("later-42"), SHOWN_WITHIN_MS, "the next line");
      const path = screenshotPath("mcp-app-view.png");
      if (path) await page.screenshot({ path: path as `${string}.png` });
    });

    test("read-only until taken over; then typing goes into the session", async () => {
      await view.click("#terminal");
      await page.keyboard.type("echo ignored-while-read-only");
      await view.click("#takeover");
      expect(await text("mode")).toContain("typing");
      await view.click("#terminal");
      await page.keyboard.type("echo app-$((2+3))\n");
      await waitFor(
        async () => (await screen()).includes("\napp-5"),
        SHOWN_WITHIN_MS,
        async () => `the typed line's output (view: ${await text("mode")}; screen:\n${await screen()})`,
      );
      await waitFor(async () => (await rows()).includes("app-5"), SHOWN_WITHIN_MS, "the view showing it");
      // Keys go out in order, one call after another: had the read-only ones gone, they would be there.
      expect(await screen()).not.toContain("ignored-while-read-only");
    });
  },
);
