/**
 * The web view's browser files, carried inside ptyhub (imported as text, so the compiled binary
 * has them too): the page, its script and style, and @xterm/xterm's module and style from the
 * installed package. Scripts are only ever these files: the CSP allows no inline script.
 */
import INDEX from "./client/index.html" with { type: "text" };
import LOGGED_OUT from "./client/logged-out.html" with { type: "text" };
import APP_JS from "./client/app.browser.js" with { type: "text" };
import TERMINAL_JS from "./client/terminal.browser.js" with { type: "text" };
import CAST_JS from "./client/cast.browser.js" with { type: "text" };
import APP_CSS from "./client/app.css" with { type: "text" };
import XTERM_JS from "@xterm/xterm/lib/xterm.mjs" with { type: "text" };
import XTERM_CSS from "@xterm/xterm/css/xterm.css" with { type: "text" };
import { webAnswer } from "./responses.ts";

// bun-types calls every *.html import an HTMLBundle; with type "text" it is the file's text.
export const INDEX_HTML = String(INDEX);
export const LOGGED_OUT_HTML = String(LOGGED_OUT);

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** Served under /assets/, by name. The source-map comment goes: its map is not shipped. */
const FILES: Record<string, { body: string; type: string }> = {
  "app.js": { body: APP_JS, type: JS },
  "terminal.js": { body: TERMINAL_JS, type: JS },
  "cast.js": { body: CAST_JS, type: JS },
  "app.css": { body: APP_CSS, type: CSS },
  "xterm.mjs": { body: XTERM_JS.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"), type: JS },
  "xterm.css": { body: XTERM_CSS, type: CSS },
};

export function asset(name: string): Response | null {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  return file ? webAnswer(200, file.body, { "Content-Type": file.type }) : null;
}
