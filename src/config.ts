/**
 * Configuration: flags, then PTYHUB_* environment variables, then
 * $XDG_CONFIG_HOME/ptyhub/config.json, then defaults. One zod schema defines every setting.
 */
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { configDir } from "./paths.ts";
import { AppError } from "./errors.ts";
import { GuardConfigSchema } from "./guard/config.ts";
import { AuditConfigSchema } from "./audit/config.ts";

export const ConfigSchema = z.object({
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
  /** The guard against destructive commands (src/guard): see README "Guard". */
  guard: GuardConfigSchema,
  /** The per-session audit trail (src/audit): see README "Audit trail". */
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
});

export type Config = z.infer<typeof ConfigSchema>;

const ENV_KEYS: Record<string, keyof Config> = {
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

function fromFile(): Record<string, unknown> {
  const path = join(configDir(), "config.json");
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (err) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `cannot parse ${path}: ${(err as Error).message}`,
      "Fix or remove the config file.",
    );
  }
}

export function loadConfig(flags: Partial<Config> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const merged = { ...fromFile(), ...fromEnv(env), ...flags };
  // jitless: one parse per process does not repay zod compiling a fast path for it (~2 ms at start).
  const parsed = ConfigSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      "Check PTYHUB_* variables and config.json.",
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
