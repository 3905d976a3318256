/**
 * The MCP Apps view (issue 38): one self-contained HTML document, served as the `ui://` resource
 * hosts show beside term_open/term_exec results. A host renders it in a sandboxed iframe and lets
 * it reach nothing but the host, so everything is inline: xterm.js and its CSS, the ext-apps
 * SDK's View side (its with-deps bundle), and the view's own script (client/mcp-app.browser.js).
 * Each bundle is an ES module; it is wrapped in a function whose `export {…}` becomes a returned
 * object, so the two share one module script without their top-level names meeting.
 */
import XTERM_JS from "@xterm/xterm/lib/xterm.mjs" with { type: "text" };
import XTERM_CSS from "@xterm/xterm/css/xterm.css" with { type: "text" };
import EXT_APPS_JS from "@modelcontextprotocol/ext-apps/app-with-deps" with { type: "text" };
import VIEW_JS from "./client/mcp-app.browser.js" with { type: "text" };

export const TERMINAL_VIEW_URI = "ui://ptyhub/terminal.html";
/** The MIME type MCP Apps hosts render (ext-apps' RESOURCE_MIME_TYPE). */
export const MCP_APP_MIME = "text/html;profile=mcp-app";

const EXPORTS = /export\s*\{([^}]*)\};?\s*(\/\/# sourceMappingURL=\S+\s*)?$/;

/** An ES module bundle as an expression whose value is its exports object. */
function asExpression(bundle: string): string {
  const m = EXPORTS.exec(bundle);
  if (!m) throw new Error("bundle has no trailing export list");
  const fields = m[1]!
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .map((item) => {
      const [local, exported] = item.split(/\s+as\s+/);
      return `${JSON.stringify(exported ?? local)}: ${local}`;
    });
  return `(() => {\n${bundle.slice(0, m.index)}\nreturn { ${fields.join(", ")} };\n})()`;
}

const STYLE =
  "body{margin:0;font:13px system-ui,sans-serif}#bar{display:flex;gap:.6em;align-items:center;padding:.3em .5em}" +
  "#mode{color:#555}button{font:inherit}" +
  ".question{display:flex;gap:.6em;align-items:center;padding:.3em .5em;background:#fff3cd}";

let built: string | null = null;

/** The view's HTML (built once: the bundles are ~0.9 MB together). */
export function terminalViewHtml(): string {
  built ??=
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ptyhub terminal</title>' +
    `<style>${XTERM_CSS}\n${STYLE}</style></head><body>` +
    '<div id="bar"><b id="session">ptyhub</b><span id="state"></span><span id="exit"></span>' +
    '<button id="takeover" type="button">Take over</button><span id="mode">read-only</span></div>' +
    '<div id="questions"></div>' +
    '<div id="terminal"></div><script type="module">\n' +
    `const { Terminal } = ${asExpression(XTERM_JS)};\n` +
    `const { App } = ${asExpression(EXT_APPS_JS)};\n` +
    `${VIEW_JS}\n</script></body></html>`;
  return built;
}
