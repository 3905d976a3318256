/**
 * The HTML of ptyhub's one-time secret page: a plain form (no script at all), and the answers
 * shown after a submission or to a request that cannot be served. Everything the page shows that
 * came from elsewhere (the question, field titles) is escaped.
 */
import { createHash } from "node:crypto";

/** One input of the page: a key of the elicitation schema, with what the human reads. */
export interface SecretField {
  key: string;
  title: string;
  description?: string;
}

const STYLE =
  "body{font:16px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}" +
  "label{display:block;margin:1em 0 .3em;font-weight:600}input{font:inherit;width:100%;padding:.4em}" +
  "small{color:#555}button{font:inherit;margin-top:1.5em;padding:.5em 1.5em}p.msg{white-space:pre-wrap}";

/**
 * The page's Content-Security-Policy: nothing may load or run (no script, no images, no frames),
 * the one inline style is allowed by its hash, and the form may post only back to this page.
 */
export const PAGE_CSP =
  "default-src 'none'; " +
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; ` +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">' +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
  );
}

/** The form: one password input per field, posted back to the page's own (one-time) address. */
export function formPage(message: string, fields: readonly SecretField[]): string {
  const inputs = fields
    .map((f, i) => {
      const id = `f${i}`;
      const note = f.description ? `<br><small>${escapeHtml(f.description)}</small>` : "";
      return (
        `<label for="${id}">${escapeHtml(f.title)}</label>` +
        `<input id="${id}" name="${escapeHtml(f.key)}" type="password" autocomplete="off"` +
        `${i === 0 ? " autofocus" : ""}>${note}`
      );
    })
    .join("");
  return page(
    "ptyhub: a secret for a terminal",
    `<h1>ptyhub</h1><p class="msg">${escapeHtml(message)}</p>` +
      `<form method="post">${inputs}<button type="submit">Send to the terminal</button></form>` +
      "<p><small>What you type here goes straight to the terminal session on this computer; the AI agent " +
      "and its MCP client never see it. This page works once.</small></p>",
  );
}

export function donePage(): string {
  return page("ptyhub: sent", "<h1>Sent</h1><p>The terminal has it. You can close this tab.</p>");
}

export function refusedPage(why: string): string {
  return page("ptyhub: refused", `<h1>Not accepted</h1><p>${escapeHtml(why)}</p>`);
}
