/**
 * `ptyhub serve --http`: the MCP server over Streamable HTTP, for clients that connect to a URL
 * instead of launching a process. It runs shell commands for whoever gets through, so it is locked
 * down by default: loopback only, a bearer token always (PTYHUB_HTTP_TOKEN, else one generated
 * once into a 0600 file whose path is printed), Origin/Host checked. Loosening any of that takes
 * an explicit flag, and is logged as such. Sessions live in the daemon, as with stdio, so killing
 * this server loses none.
 */
import { existsSync } from "node:fs";
import { createApp, handleShutdown } from "./app.ts";
import { loadConfig } from "../config/config.ts";
import { logger } from "../log.ts";
import { startHttpServer } from "./http.ts";
import { isLoopbackHost } from "./http-guard.ts";
import { resolveHttpToken } from "../config/http-token.ts";
import { parseVerbArgs, UsageError } from "../util/verb-args.ts";
import { LOGIN_CODE_TTL_MS } from "../web/login.ts";

const log = logger("serve");

const DEFAULT_HOST = "127.0.0.1";

export const SERVE_USAGE = `usage: ptyhub serve --http [--host 127.0.0.1] [--port 6420] [--tls-cert FILE --tls-key FILE]
                    [--allow-origin URL]... [--insecure-no-auth]

Serves MCP over Streamable HTTP at /mcp, and a web view of the sessions at / (log in with the
one-time link printed at start, or by \`ptyhub web\`). Clients send "Authorization: Bearer <token>"; the token
is PTYHUB_HTTP_TOKEN, else generated once and kept in a 0600 file whose path is printed.
  --host ADDR          listen address (default 127.0.0.1; anything else exposes a shell to that network)
  --port N             listen port (default: config http_port, 6420; 0 picks a free one)
  --tls-cert/--tls-key serve HTTPS with this PEM certificate and key (Bun.serve's TLS)
  --allow-origin URL   accept browser requests from this origin too (repeatable)
  --insecure-no-auth   accept requests without a token (never do this off a single-user machine)
`;

function usage(message: string): never {
  throw new UsageError("serve", message, SERVE_USAGE);
}

const SERVE_ARGS = {
  verb: "serve",
  usage: SERVE_USAGE,
  options: {
    http: { type: "boolean" },
    host: { type: "string" },
    port: { type: "string" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "allow-origin": { type: "string", multiple: true },
    "insecure-no-auth": { type: "boolean" },
  },
} as const;

export async function runServeCommand(args: string[]): Promise<number> {
  const parsed = parseVerbArgs(SERVE_ARGS, args);
  if (!parsed) return 0;
  const { values } = parsed;
  if (!values.http) usage("say which transport: `ptyhub serve --http` (stdio is `ptyhub` with no verb)");
  const config = loadConfig();
  const port = values.port === undefined ? config.http_port : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`--port must be 0–65535, not '${values.port}'`);
  const host = values.host ?? DEFAULT_HOST;
  const certFile = values["tls-cert"];
  const keyFile = values["tls-key"];
  if ((certFile === undefined) !== (keyFile === undefined)) usage("--tls-cert and --tls-key go together");
  for (const f of [certFile, keyFile]) if (f !== undefined && !existsSync(f)) usage(`no such file: ${f}`);
  const origins = [...config.http_allowed_origins, ...(values["allow-origin"] ?? [])];
  for (const o of origins) {
    if (!URL.canParse(o)) usage(`--allow-origin needs a URL like https://host:port, not '${o}'`);
  }

  const noAuth = values["insecure-no-auth"] === true;
  const token = noAuth ? null : resolveHttpToken();
  if (noAuth)
    log.warn("AUTHENTICATION DISABLED (--insecure-no-auth): anyone who reaches this port can run commands as you");
  if (!isLoopbackHost(host))
    log.warn(`listening on ${host} by explicit choice (--host): reachable beyond this machine`);

  const app = createApp(config);
  const server = startHttpServer(app, {
    host,
    port,
    token: token?.token ?? null,
    allowedOrigins: origins,
    tls: certFile !== undefined && keyFile !== undefined ? { cert: certFile, key: keyFile } : null,
    maxBodyBytes: config.http_max_body_bytes,
    maxConnections: config.http_max_connections,
    maxSessions: config.http_max_sessions,
  });
  handleShutdown(app, () => server.close(), log);

  const lines = [`ptyhub MCP over HTTP at ${server.url}`];
  if (!token) lines.push("auth: NONE (--insecure-no-auth)");
  else if (token.source === "env") lines.push("auth: Authorization: Bearer $PTYHUB_HTTP_TOKEN");
  else lines.push(`auth: Authorization: Bearer <token in ${token.path}>${token.created ? " (generated now)" : ""}`);
  lines.push(
    `web view (one-time login link, ${LOGIN_CODE_TTL_MS / 60_000} min; \`ptyhub web\` prints another): ` +
      server.webLink(),
  );
  lines.push(`origins allowed: ${[...server.origins].join(" ")}`);
  process.stdout.write(lines.join("\n") + "\n");
  // Serve until a signal ends the process (handleShutdown exits it).
  await new Promise<never>(() => {});
  return 0;
}
