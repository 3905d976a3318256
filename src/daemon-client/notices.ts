/**
 * What a client of the daemon should be told about the daemon it reached, beside its sessions:
 * a daemon of another version than this ptyhub (an old one keeps serving while it hosts
 * sessions: daemon-client/upgrade.ts), and settings that changed since the daemon started (it
 * reads them once). term_list puts these at the head of its answer, where the model reads them,
 * and `ptyhub ls` prints them; each says what ends the condition and what that costs.
 */
import { ConfigError, loadConfig } from "../config/config.ts";
import { configFingerprint } from "../config/config-fingerprint.ts";
import { VERSION } from "../version.ts";
import type { DaemonClient } from "./client.ts";

function sessionsEnded(n: number): string {
  return n === 0 ? "it hosts no session" : `ending its ${n} session${n === 1 ? "" : "s"}`;
}

/**
 * The notices for daemon `c`, as this process's environment `env` sees the settings now. A broken
 * configuration yields no settings notice: every tool call reports that already.
 */
export async function daemonNotices(c: DaemonClient, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const status = await c.control("status", {});
  const notices: string[] = [];
  if (status.version !== VERSION) {
    notices.push(
      `the ptyhub daemon hosting the persistent sessions is version ${status.version}, this ptyhub ${VERSION}: ` +
        `\`ptyhub daemon --stop\` (${sessionsEnded(status.sessions)}) lets the next term_open start one of ${VERSION}`,
    );
  }
  if (status.config !== undefined) {
    let now: string | null = null;
    try {
      now = configFingerprint(loadConfig({}, env));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
    }
    if (now !== null && now !== status.config) {
      notices.push(
        "the settings (config.json or PTYHUB_* variables) changed since the ptyhub daemon started, and its " +
          `sessions still use the old ones: \`ptyhub daemon --stop\` (${sessionsEnded(status.sessions)}) applies them`,
      );
    }
  }
  return notices;
}
