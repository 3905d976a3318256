/**
 * The MCP Apps view (issue 38) as a host shows it: a client declaring the extension finds the view
 * on term_open/term_exec and reads the ui:// resource; a test host page built with the ext-apps
 * SDK's host side (app-host/host.js) renders it in a sandboxed iframe in headless chromium and
 * forwards its tool calls to a real `ptyhub serve --http`. The view shows the session's screen as
 * term_read reports it, its state and last exit code, and types into it only once taken over:
 * through the app-only tool term_view_input, as the human (the trail says so), the guard still
 * judging. The guard's questions this client's calls wait on are answered in the view. A client
 * without the extension sees nothing new, and is refused the view's tools.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isToolVisibilityAppOnly } from "@modelcontextprotocol/ext-apps/app-bridge";
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
/** The MCP Apps view's own tools: the host calls them for the view, never for the model. */
const VIEW_TOOLS = ["term_view_input", "term_view_questions", "term_view_answer"];
/** The ext-apps SDK's own test of visibility, as a host applies it to build its model's tool list. */
const appOnly = (tool: { _meta?: Record<string, unknown> }) => isToolVisibilityAppOnly({ _meta: tool._meta });
/** Stopped by the guard for a human to confirm (chmod-recursive-root), harmless when run: no such directory. */
const GUARDED = "chmod -R 777 /nonexistent-ptyhub-app-view";

const fx = httpFixture();
let server: HttpServerProc;
let host: McpClient;
let plain: McpClient;
let stateHome: string;

/** The session's audit trail as written (its current file). */
function trail(session: string): Record<string, unknown>[] {
  const file = join(stateHome, "ptyhub", "audit", `${session}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  const env = fx.env({ SHELL: "/bin/bash" });
  stateHome = env.XDG_STATE_HOME!;
  server = await fx.server(env);
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

  test("the view's own tools are app-only: listed to the host, which keeps them from its model", async () => {
    const { tools } = await host.client.listTools();
    for (const name of VIEW_TOOLS) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?._meta?.ui).toEqual({ visibility: ["app"] });
      expect(appOnly(tool!)).toBe(true);
    }
    // The model's list, as a host builds it with the ext-apps SDK's own test of visibility.
    const forModel = tools.filter((t) => !appOnly(t)).map((t) => t.name);
    expect(forModel).toContain("term_send");
    for (const name of VIEW_TOOLS) expect(forModel).not.toContain(name);
  });

  test("a client without MCP Apps sees nothing new", async () => {
    const { tools } = await plain.client.listTools();
    expect(tools.some((t) => t._meta?.ui !== undefined)).toBe(false);
    for (const name of VIEW_TOOLS) expect(tools.map((t) => t.name)).not.toContain(name);
    const { resources } = await plain.client.listResources();
    expect(resources.some((r) => r.uri.startsWith("ui://"))).toBe(false);
  });

  test("a client without MCP Apps is refused the view's tools, with a code and a hint; nothing is typed", async () => {
    await plain.ok("term_open", { name: "plainview", cols: 80, rows: 24 });
    const typed = await plain.call("term_view_input", { session: "plainview", text: "echo not-$((6*7))\r" });
    expect(typed.isError).toBe(true);
    expect(typed.error?.code).toBe("INVALID_ARGUMENT");
    expect(typed.error?.message).toContain("term_view_input is called by ptyhub's MCP Apps terminal view only");
    expect(typed.error?.hint).toContain("term_send");
    for (const [name, args] of [
      ["term_view_questions", {}],
      ["term_view_answer", { id: "x", allow: true }],
    ] as const) {
      expect((await plain.call(name, args)).error?.code).toBe("INVALID_ARGUMENT");
    }
    // Its own unknown-tool hint does not name them either.
    expect((await plain.call("term_nope", {})).error?.hint).not.toContain("term_view");
    // Had the keys been typed, the line would have run before this one.
    const after = await plain.ok("term_exec", { session: "plainview", command: "echo after" });
    expect(after.output).toBe("after");
    expect((await plain.ok("term_read", { session: "plainview", mode: "screen" })).output).not.toContain("not-42");
    expect(trail("plainview").some((e) => String(e.who).startsWith("human"))).toBe(false);
  });
});

describe("the view's own tools for a client whose model reads text", () => {
  test("still answer with fields: the view, not a model, reads them", async () => {
    const textClient = await fx.client(server, "claude-code", APPS);
    await textClient.ok("term_open", { name: "textform" });
    const modelSide = await textClient.client.callTool({
      name: "term_read",
      arguments: { session: "textform", wait_ms: 0 },
    });
    expect(modelSide.structuredContent).toBeUndefined(); // its model gets the text form
    const r = await textClient.client.callTool({
      name: "term_view_screen",
      arguments: { session: "textform", wait_ms: 0 },
    });
    const screen = r.structuredContent as { state?: string; digest?: string };
    expect(screen.state).toBe("prompt");
    expect(screen.digest).toMatch(/^[\w-]{32}$/);
  });
});

describe("the guard's questions in a view: its own client's only", () => {
  test("a view lists and answers its client's questions, not another's; nor does it make others wait", async () => {
    const mine = await fx.client(server, "apps-host-b", APPS);
    const other = await fx.client(server, "apps-host-c", APPS);
    const plainAgent = await fx.client(server, "plain-agent-c");
    await mine.ok("term_open", { name: "qview", cols: 80, rows: 24 });
    // The view of `mine` is open (it looks), so its client's question waits there.
    expect((await mine.ok("term_view_questions", {})).questions).toEqual([]);
    const exec = mine.call("term_exec", { session: "qview", command: GUARDED });
    let id = "";
    await waitFor(
      async () => {
        const [q] = (await mine.ok("term_view_questions", {})).questions as { id: string; message: string }[];
        id = q?.id ?? "";
        return q?.message.includes(GUARDED) === true;
      },
      SHOWN_WITHIN_MS,
      "the question in the view of its own client",
    );
    // Another client's view sees nothing and cannot answer it.
    expect((await other.ok("term_view_questions", {})).questions).toEqual([]);
    const stolen = await other.call("term_view_answer", { id, allow: true });
    expect(stolen.error?.code).toBe("INVALID_ARGUMENT");
    expect(stolen.error?.hint).toContain("term_view_questions");
    // A view open for one client does not make a client without elicitation and without a view wait.
    await plainAgent.ok("term_open", { name: "qplain" });
    const refused = await plainAgent.call("term_exec", { session: "qplain", command: GUARDED });
    expect(refused.error?.code).toBe("BLOCKED_BY_GUARD");
    // Its own view declines it: the call ends refused, the command never ran.
    expect((await mine.ok("term_view_answer", { id, allow: false })).allow).toBe(false);
    const r = await exec;
    expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
    expect((await mine.ok("term_read", { session: "qview", mode: "screen" })).output).not.toContain("cannot access");
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
      const { tools } = await host.client.listTools();
      browser = await launchBrowser();
      page = await browser.newPage();
      await page.exposeFunction("viewData", () => ({ html, args, result, tools }));
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

    test("the view's screen reads leave the model's unread output unread", async () => {
      await host.ok("term_exec", { session: SESSION, command: "(sleep 0.3; echo late-$((3*3))) &" });
      await waitFor(
        async () => (await rows()).join("\n").includes("late-9"),
        SHOWN_WITHIN_MS,
        async () => `the late line in the view (view:\n${(await rows()).join("\n")}\nscreen:\n${await screen()})`,
      );
      const unread = await host.ok("term_read", { session: SESSION, mode: "new", wait_ms: 0 });
      expect(unread.output as string).toContain("late-9");
      // It reads only with its own tool, each call waiting for a change: not term_read every second.
      const called = new Set((await page.evaluate("window.viewCalls")) as string[]);
      expect([...called].sort()).toEqual(["term_view_questions", "term_view_screen"]);
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
      // The trail names the human, typing through the view, not the MCP client.
      const typed = trail(SESSION).filter((e) => e.event === "typed" && String(e.text).includes("app-$((2+3))"));
      expect(typed.map((e) => [e.who, e.via])).toEqual([["human (MCP App)", "app"]]);
    });

    test("a guard question the agent's call waits on is answered in the view", async () => {
      // The host's client cannot ask its human (no elicitation): with the view open, the question waits there.
      const exec = host.call("term_exec", { session: SESSION, command: GUARDED });
      await view.waitForSelector(".question .approve", { timeout: SHOWN_WITHIN_MS });
      expect(await view.$eval(".question span", (e) => e.textContent)).toContain(GUARDED);
      await view.click(".question .approve");
      const r = await exec;
      expect(r.error).toBeNull();
      expect(r.data.exit_code).toBe(1); // chmod ran: the directory is not there
      await waitFor(async () => (await view.$$(".question")).length === 0, SHOWN_WITHIN_MS, "the question gone");
      expect(trail(SESSION).some((e) => e.event === "guard" && e.outcome === "confirmed")).toBe(true);
    });

    test("the human's guarded line in the take-over is judged too: declined in the view, it does not run", async () => {
      const ran = async () => (await screen()).split("cannot access").length - 1; // chmod's complaint, per run
      const before = await ran();
      await view.click("#terminal");
      await page.keyboard.type(`${GUARDED}\n`);
      await view.waitForSelector(".question .decline", { timeout: SHOWN_WITHIN_MS });
      await view.click(".question .decline");
      await waitFor(
        async () => (await text("mode")).includes("BLOCKED") || (await text("mode")).includes("guard"),
        SHOWN_WITHIN_MS,
        async () => `the refusal in the view (mode: ${await text("mode")})`,
      );
      expect(await ran()).toBe(before);
      // The line waits at the prompt, typed but never submitted.
      expect((await screen()).trimEnd()).toEndWith(`# ${GUARDED}`);
      const typedLine = trail(SESSION).filter((e) => e.who === "human (MCP App)" && String(e.text).includes(GUARDED));
      expect(typedLine).toEqual([]); // the Enter was never typed, so no line of the human's holds it
      await host.ok("term_send", { session: SESSION, keys: ["ctrl+u"] });
    });
  },
);
