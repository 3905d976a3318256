/**
 * A real browser for the web-view tests: Debian's chromium, headless, driven by puppeteer-core
 * (which downloads nothing). Absent chromium, the browser tests skip and say why, unless
 * PTYHUB_REQUIRE_CHROMIUM=1 (CI installs it) makes that a failure.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export const CHROMIUM = process.env.PTYHUB_CHROMIUM ?? "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && process.env.PTYHUB_REQUIRE_CHROMIUM === "1")
  throw new Error(`PTYHUB_REQUIRE_CHROMIUM=1 but there is no ${CHROMIUM} (apt-get install chromium)`);
export const NO_CHROMIUM_WHY = `skipped: no ${CHROMIUM} (apt-get install -y --no-install-recommends chromium)`;

/** The window the pages are shown in (and screenshots taken at). */
const VIEWPORT = { width: 1280, height: 800 };

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root chromium runs only without its sandbox; the pages are our own, on loopback.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    defaultViewport: VIEWPORT,
  });
}

/** The browser's process, for the test to be sure it ended. */
export function browserPid(b: Browser): number | null {
  return b.process()?.pid ?? null;
}

/** The text of an xterm.js terminal's rows under `selector`, one string per row, right-trimmed. */
export async function terminalRows(page: Page, selector: string): Promise<string[]> {
  const rows = await page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(`${selector} .xterm-rows > div`)})].map((r) => r.textContent)`,
  );
  return (rows as string[]).map((r) => r.replace(/\u00a0/g, " ").trimEnd());
}

/** Where a test's screenshots go: PTYHUB_SCREENSHOT_DIR when set (docs/images), else null. */
export function screenshotPath(name: string): string | null {
  const dir = process.env.PTYHUB_SCREENSHOT_DIR;
  if (!dir) return null;
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
