/**
 * Configuration: flags, then PTYHUB_* environment variables, then
 * $XDG_CONFIG_HOME/ptyhub/config.json, then defaults. One zod schema defines every setting.
 */
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { configDir } from "../paths.ts";
import { AppError } from "../api/errors.ts";
import { GuardConfigSchema } from "./guard-settings.ts";
import { AuditConfigSchema } from "./audit-settings.ts";
import { nodeValue, parseJsonc } from "../util/jsonc.ts";
import { closestWord } from "../util/did-you-mean.ts";

/** Strict: a key that is not a setting (a typo such as "colz") is an error, not silently ignored. */
export const ConfigSchema = z.strictObject({
  /** Most sessions one host keeps at once (SESSION_LIMIT beyond). */
  max_sessions: z.number().int().min(1).max(1024).default(64),
  /** A session with no input, output or tool call for this long is closed. */
  idle_timeout_ms: z.number().int().min(1000).default(3_600_000),
  /** Default terminal size. */
  cols: z.number().int().min(20).max(500).default(120),
  rows: z.number().int().min(5).max(200).default(40),
  /** Shell for sessions opened without a command; default: $SHELL, else /bin/sh. */
  shell: z.string().min(1).optional(),
  /** How long term_open waits for a shell's first prompt. */
  open_timeout_ms: z.number().int().min(100).max(600_000).default(15_000),
  /** Sessions live in the daemon unless term_open says persistent:false. */
  persistent: z.boolean().default(true),
  /**
   * The daemon exits after this long with no session and no client (0: never). Such a daemon
   * holds nothing worth keeping (tmux exits at once); the minute only spares an MCP server that
   * reconnects right away a ~150 ms daemon start.
   */
  daemon_idle_ms: z.number().int().min(0).default(60_000),
  /** The guard against destructive commands (src/guard): see docs/safety.md. */
  guard: GuardConfigSchema,
  /** The per-session audit trail (src/audit): see docs/safety.md. */
  audit: AuditConfigSchema,
  /** `ptyhub serve --http`: the port when --port is not given. */
  http_port: z.number().int().min(0).max(65535).default(6420),
  /**
   * Largest HTTP request body. Tool arguments are small (a command line, keystrokes); 4 MiB leaves
   * room for a big term_send paste and still stops a client from filling memory.
   */
  http_max_body_bytes: z
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /**
   * Open HTTP requests at once, SSE streams included (each MCP client keeps one or two); beyond
   * it a request gets 503, so a flood of connections cannot exhaust the server.
   */
  http_max_connections: z.number().int().min(2).max(10_000).default(128),
  /** MCP sessions (connected HTTP clients) at once; a new one beyond it gets 503. */
  http_max_sessions: z.number().int().min(1).max(10_000).default(32),
  /** Origins allowed besides the server's own (e.g. "https://ide.example.com"); others get 403. */
  http_allowed_origins: z.array(z.string().url()).default([]),
  /**
   * What a tool result carries: `text` (the rendering only), `structured` (also structuredContent),
   * or `auto`: text for clients whose model reads structuredContent as JSON (Claude Code, Codex),
   * structured for the rest (see mcp/client-profile.ts).
   */
  result_form: z.enum(["auto", "text", "structured"]).default("auto"),
  /**
   * Variables the MCP client set for itself that sessions may still see (names, or prefixes ending
   * in `*`). By default sessions get none of them (see session/client-env.ts).
   */
  session_env_allow: z.array(z.string().min(1)).default([]),
  /** term_exec rewrites known noisy output (git, grep, test runs, installs, builds) unless a call says otherwise. */
  reduce: z.boolean().default(false),
  /**
   * MCP Tasks (2026-07-28 clients that declare the tasks extension): a term_exec, term_send or
   * term_read still waiting after this long is answered as a task that runs on in the background.
   */
  task_inline_ms: z.number().int().min(0).max(600_000).default(3000),
  /** The poll interval a task asks of the client: part of the delay from a command's end to the agent's turn. */
  task_poll_interval_ms: z.number().int().min(250).max(30_000).default(1000),
  /** How long a task's result (or its question) is kept after its last change. */
  task_ttl_ms: z.number().int().min(1000).max(86_400_000).default(1_800_000),
  /**
   * How long ptyhub's one-time secret page (URL-mode elicitation for term_secret and SSH
   * passphrases) waits for the human before it expires.
   */
  secret_page_ttl_ms: z.number().int().min(1000).max(3_600_000).default(600_000),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Each setting that a PTYHUB_* variable can give, by the variable's name (docs/config.md lists them). */
export const ENV_KEYS: Record<string, keyof Config> = {
  PTYHUB_MAX_SESSIONS: "max_sessions",
  PTYHUB_IDLE_TIMEOUT_MS: "idle_timeout_ms",
  PTYHUB_COLS: "cols",
  PTYHUB_ROWS: "rows",
  PTYHUB_SHELL: "shell",
  PTYHUB_OPEN_TIMEOUT_MS: "open_timeout_ms",
  PTYHUB_PERSISTENT: "persistent",
  PTYHUB_DAEMON_IDLE_MS: "daemon_idle_ms",
  PTYHUB_HTTP_PORT: "http_port",
  PTYHUB_HTTP_MAX_BODY_BYTES: "http_max_body_bytes",
  PTYHUB_HTTP_MAX_CONNECTIONS: "http_max_connections",
  PTYHUB_HTTP_MAX_SESSIONS: "http_max_sessions",
  PTYHUB_RESULT_FORM: "result_form",
  PTYHUB_SESSION_ENV_ALLOW: "session_env_allow",
  PTYHUB_REDUCE: "reduce",
  PTYHUB_TASK_INLINE_MS: "task_inline_ms",
  PTYHUB_TASK_POLL_INTERVAL_MS: "task_poll_interval_ms",
  PTYHUB_TASK_TTL_MS: "task_ttl_ms",
  PTYHUB_SECRET_PAGE_TTL_MS: "secret_page_ttl_ms",
};

const BOOLEAN_KEYS = new Set<keyof Config>(["persistent", "reduce"]);
const STRING_KEYS = new Set<keyof Config>(["shell", "result_form"]);
/** Settings given in the environment as a comma- or space-separated list. */
const LIST_KEYS = new Set<keyof Config>(["session_env_allow"]);

function parseBoolean(raw: string): boolean | string {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return raw; // left for the schema to reject with a clear message
}

function fromEnv(env: NodeJS.ProcessEnv): Partial<Record<keyof Config, unknown>> {
  const out: Partial<Record<keyof Config, unknown>> = {};
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    out[key] = STRING_KEYS.has(key)
      ? raw
      : LIST_KEYS.has(key)
        ? raw.split(/[\s,]+/).filter(Boolean)
        : BOOLEAN_KEYS.has(key)
          ? parseBoolean(raw)
          : Number(raw);
  }
  return out;
}

/** The configuration cannot be used: what is wrong, where (the file and key, or the variable). */
export class ConfigError extends AppError {
  constructor(message: string, hint: string) {
    super("INVALID_ARGUMENT", `ptyhub's configuration is invalid: ${message}`, hint);
    this.name = "ConfigError";
  }
}

export function configFilePath(): string {
  return join(configDir(), "config.json");
}

/** config.json's settings; JSONC (comments, trailing commas) as editors write it. */
function fromFile(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let value: unknown;
  try {
    const root = parseJsonc(readFileSync(path, "utf8")).root;
    value = root === null ? {} : nodeValue(root);
  } catch (err) {
    throw new ConfigError(
      `cannot parse ${path}: ${(err as Error).message}`,
      `Fix ${path} (JSON; // comments and trailing commas are fine), or remove it.`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${path} must hold one JSON object of settings`, `Write {"key": value, ...} in ${path}.`);
  }
  return value as Record<string, unknown>;
}

/** The keys an object schema allows, for naming them next to a key it does not know. */
function allowedKeys(path: PropertyKey[]): string[] {
  let schema: z.ZodType = ConfigSchema;
  for (const key of path) {
    while (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
    if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodObject && typeof key === "string") schema = schema.shape[key] as z.ZodType;
  }
  while (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** One problem, saying where it came from: a flag, a PTYHUB_* variable, or the file and its key. */
function describeIssue(
  issue: z.core.$ZodIssue,
  sources: { env: Set<string>; flags: Set<string>; file: string },
): string {
  const top = String(issue.path[0] ?? "");
  const envName = Object.entries(ENV_KEYS).find(([, key]) => key === top)?.[0];
  const where = sources.flags.has(top)
    ? "flag"
    : envName && sources.env.has(top)
      ? `environment variable ${envName}`
      : sources.file;
  const keyPath = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const inside = keyPath ? ` in "${keyPath}"` : "";
    const allowed = allowedKeys(issue.path);
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    const noun = issue.keys.length > 1 ? "keys" : "key";
    const guesses = issue.keys.flatMap((k) => {
      const guess = closestWord(k, allowed);
      return guess === undefined ? [] : [`did you mean "${guess}"${issue.keys.length > 1 ? ` for "${k}"` : ""}?`];
    });
    const suggestion = guesses.length > 0 ? ` — ${guesses.join(" ")}` : "";
    return `${where}: unknown ${noun} ${keys}${inside}${suggestion} (allowed: ${allowed.join(", ")})`;
  }
  return `${where}: ${keyPath}: ${issue.message}`;
}

export function loadConfig(flags: Partial<Config> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const file = configFilePath();
  const fromEnvironment = fromEnv(env);
  const merged = { ...fromFile(file), ...fromEnvironment, ...flags };
  // jitless: one parse per process does not repay zod compiling a fast path for it (~2 ms at start).
  const parsed = ConfigSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    const sources = { env: new Set(Object.keys(fromEnvironment)), flags: new Set(Object.keys(flags)), file };
    throw new ConfigError(
      parsed.error.issues.map((i) => describeIssue(i, sources)).join("; "),
      `Fix it (docs/config.md lists the settings); ptyhub reads it again at the next tool call or start.`,
    );
  }
  return parsed.data;
}

let processWide: Config | null = null;

/** This process's configuration, read once: for settings consulted far from where the server starts it. */
export function processConfig(): Config {
  processWide ??= loadConfig();
  return processWide;
}
