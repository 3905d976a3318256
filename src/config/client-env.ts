/**
 * A session's environment is the user's, not the MCP client's. Clients launch their MCP servers
 * with their own environment, credentials included: Claude Code passes ANTHROPIC_API_KEY and its
 * CLAUDE_CODE_* session tokens (CLAUDE_CODE_MESSAGING_TOKEN, …), so `env` in a session would hand
 * the model the user's key. These variables are dropped where a session's environment is built
 * (launch.ts) and where the daemon, which hosts sessions, is spawned (daemon/start.ts). The
 * `session_env_allow` setting (PTYHUB_SESSION_ENV_ALLOW) restores any of them.
 */
import { processConfig } from "./config.ts";

/**
 * What MCP clients set for themselves, seen in the environment Claude Code 2.1.330 gives its
 * servers (and Codex's and OpenAI's documented variables). A trailing `*` matches a prefix.
 */
export const CLIENT_ENV: readonly string[] = [
  "ANTHROPIC_*",
  "CLAUDECODE",
  "CLAUDE_CODE_*",
  "CLAUDE_AGENT_SDK_*",
  "CLAUDE_PROJECT_DIR",
  "AI_AGENT",
  "COREPACK_ENABLE_AUTO_PIN",
  "NoDefaultCurrentDirectoryInExePath",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "CODEX_*",
];

function matches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** True when `name` is a client's own variable that sessions should not see. */
export function isClientEnv(name: string, allow: readonly string[]): boolean {
  return matches(name, CLIENT_ENV) && !matches(name, allow);
}

/** `env` without the client's own variables, except those `allow` names. */
export function withoutClientEnv(
  env: Record<string, string | undefined>,
  allow: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isClientEnv(k, allow)) out[k] = v;
  return out;
}

/**
 * The `session_env_allow` setting of this process. An unreadable configuration allows nothing:
 * the safe side, and the server reports the configuration error itself at start.
 */
export function sessionEnvAllow(): readonly string[] {
  try {
    return processConfig().session_env_allow;
  } catch {
    return [];
  }
}
