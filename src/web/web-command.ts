/**
 * `ptyhub web [--port N | --url URL]`: a new one-time login link to the web view of a running
 * `ptyhub serve --http`. It asks that server for one with the bearer token (the link is minted
 * there, where it is checked), so the person at this terminal needs nothing but the command; a
 * program inside a ptyhub session is refused by the server, as for every web-view request.
 */
import { AppError } from "../api/errors.ts";
import { loadConfig } from "../config/config.ts";
import { resolveHttpToken } from "../config/http-token.ts";
import { parseVerbArgs, UsageError } from "../util/verb-args.ts";
import { LOGIN_CODE_TTL_MS } from "./login.ts";
import { NEW_LINK_PATH } from "./router.ts";

/** How long the server may take to answer before the verb gives up. */
const ANSWER_TIMEOUT_MS = 5_000;

const WEB_USAGE = `usage: ptyhub web [--port N | --url URL]

Prints a new one-time link that logs a browser in to the web view of a running
\`ptyhub serve --http\` (it works once, for ${LOGIN_CODE_TTL_MS / 60_000} minutes).
  --port N    the server's port on 127.0.0.1 (default: config http_port, 6420)
  --url URL   the server's address, e.g. https://127.0.0.1:6420 (with --tls-cert)
`;

const WEB_ARGS = {
  verb: "web",
  usage: WEB_USAGE,
  options: { port: { type: "string" }, url: { type: "string" } },
} as const;

export async function runWebCommand(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(WEB_ARGS, args);
  if (!parsed) return 0;
  const { port, url } = parsed.values;
  if (port !== undefined && url !== undefined) throw new UsageError("web", "--port or --url, not both", WEB_USAGE);
  if (url !== undefined && !URL.canParse(url))
    throw new UsageError("web", `--url needs a URL like http://127.0.0.1:6420, not '${url}'`, WEB_USAGE);
  const base = url !== undefined ? new URL(url).origin : `http://127.0.0.1:${port ?? loadConfig().http_port}`;
  let res: Response;
  try {
    res = await fetch(`${base}${NEW_LINK_PATH}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${resolveHttpToken().token}` },
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (err) {
    throw new AppError(
      "DAEMON_UNAVAILABLE",
      `no ptyhub web view answers at ${base}: ${(err as Error).message}`,
      "Start one with `ptyhub serve --http` (it prints a link too), or say where it is with --port/--url.",
    );
  }
  const body = (await res.json().catch(() => ({}))) as { url?: unknown; error?: unknown };
  if (!res.ok || typeof body.url !== "string") {
    throw new AppError(
      "INVALID_ARGUMENT",
      `the server at ${base} gave no link (${res.status}): ${String(body.error ?? "")}`,
      "Is it ptyhub serve --http, with the token of this user (PTYHUB_HTTP_TOKEN or its token file)?",
    );
  }
  process.stdout.write(`${body.url}\n`);
  return 0;
}
