/**
 * Sessions don't inherit the MCP client's credentials: what Claude Code (or Codex) put in the
 * server's environment for itself is dropped from every session's environment and from the
 * daemon's, unless session_env_allow names it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { isClientEnv, withoutClientEnv } from "../../src/config/client-env.ts";

const CLIENT_VARS = {
  ANTHROPIC_API_KEY: "sk-ant-secret-value",
  CLAUDE_CODE_MESSAGING_TOKEN: "claude-token-value",
  CLAUDECODE: "claudecode-value",
  OPENAI_API_KEY: "sk-openai-secret-value",
  CODEX_HOME_TOKEN: "codex-value",
};
const root = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "senv-"));
const daemonEnv = { PTYHUB_SOCKET: join(root, "d", "daemon.sock") };
const servers: StdioMcp[] = [];
async function start(env: Record<string, string>): Promise<StdioMcp> {
  const s = await startMcp({ env: { PTYHUB_SHELL: "/bin/bash", USER_OWN_VAR: "kept", ...CLIENT_VARS, ...env } });
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers) await s.close();
  await stopDaemon(daemonEnv);
});

const names = "env | cut -d= -f1 | sort | tr '\\n' ' '";

describe("session environment", () => {
  test("patterns: names and prefixes, the allow list wins", () => {
    expect(isClientEnv("CLAUDE_CODE_SESSION_ID", [])).toBe(true);
    expect(isClientEnv("ANTHROPIC_BASE_URL", [])).toBe(true);
    expect(isClientEnv("ANTHROPIC_BASE_URL", ["ANTHROPIC_*"])).toBe(false);
    expect(isClientEnv("OPENAI_API_KEY", ["OPENAI_API_KEY"])).toBe(false);
    expect(isClientEnv("PATH", [])).toBe(false);
    expect(withoutClientEnv({ A: "1", CLAUDECODE: "1", B: undefined }, [])).toEqual({ A: "1" });
  });

  test("an in-process session sees the user's variables, not the client's", async () => {
    const s = await start({ PTYHUB_PERSISTENT: "0" });
    const r = await s.ok("term_exec", { command: names });
    expect(r.output).toContain("USER_OWN_VAR");
    for (const k of Object.keys(CLIENT_VARS)) expect(r.output).not.toContain(k);
    const values = await s.ok("term_exec", { command: "env" });
    for (const v of Object.values(CLIENT_VARS)) expect(values.output).not.toContain(v);
  }, 30_000);

  test("session_env_allow restores what it names", async () => {
    const s = await start({ PTYHUB_PERSISTENT: "0", PTYHUB_SESSION_ENV_ALLOW: "OPENAI_API_KEY, CLAUDE_CODE_*" });
    const r = await s.ok("term_exec", { command: names });
    expect(r.output).toContain("OPENAI_API_KEY");
    expect(r.output).toContain("CLAUDE_CODE_MESSAGING_TOKEN");
    expect(r.output).not.toContain("ANTHROPIC_API_KEY");
  }, 30_000);

  test("the daemon a server spawns, and the sessions it hosts, never get the client's variables", async () => {
    const s = await start({ ...daemonEnv, PTYHUB_PERSISTENT: "1" });
    const opened = await s.ok("term_open", { name: "hosted" });
    expect(opened.persistent).toBe(true);
    const r = await s.ok("term_exec", { session: "hosted", command: names });
    expect(r.output).toContain("USER_OWN_VAR");
    for (const k of Object.keys(CLIENT_VARS)) expect(r.output).not.toContain(k);
    const daemonPid = await s.ok("term_exec", { session: "hosted", command: "echo $PPID" });
    // The shell's parent is the daemon: its own environment is scrubbed too.
    const environ = readFileSync(`/proc/${daemonPid.output.trim()}/environ`, "latin1");
    expect(environ).toContain("USER_OWN_VAR=kept");
    for (const v of Object.values(CLIENT_VARS)) expect(environ).not.toContain(v);
    await s.ok("term_close", { session: "hosted" });
  }, 30_000);
});
