/**
 * The sandbox of a user who is not root, the usual developer's: the launcher runs under
 * unshare(1) in a user namespace of its own (sandbox/userns.ts) to hide ptyhub's directories.
 * Run where the tests are root: a whole ptyhub (MCP server over stdio, its daemon, the session)
 * runs as `nobody` through setpriv(1), with its own socket, state and config directories. Also:
 * without unshare(1) on its PATH, such a user's sandboxed term_open is refused, nothing started.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, startMcp, type Env, type McpClient } from "../helpers/mcp-client.ts";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";

/** nobody/nogroup on Debian and Ubuntu. */
const NOBODY = 65534;
const SETPRIV = Bun.which("setpriv");
const AS_NOBODY = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];
const isRoot = process.getuid?.() === 0;
const runs = landlockAbi() >= 1 && isRoot && SETPRIV !== null && Bun.which("unshare") !== null;
/** Longer than the waits in the commands below, so each term_exec answers "done". */
const EXEC_TIMEOUT_MS = 45_000;
/** Programs the refused server's PATH holds: a shell and what it runs, but no unshare(1). */
const NO_UNSHARE_PROGRAMS = ["bash", "sh", "env", "cat", "true"];
const TOKEN = `nonroot-${"t".repeat(40)}`;

let dir: string;
const clients: McpClient[] = [];
const envs: Env[] = [];

/** A directory tree for one `nobody` ptyhub: HOME, XDG dirs, TMPDIR and its socket. */
function nobodyEnv(name: string, extra: Env = {}): Env {
  const base = join(dir, name);
  const env: Env = { ...(process.env as Env), ...extra };
  const dirs: Record<string, string> = {
    HOME: "home",
    XDG_RUNTIME_DIR: "runtime",
    XDG_STATE_HOME: "state",
    XDG_CONFIG_HOME: "config",
    XDG_CACHE_HOME: "cache",
    TMPDIR: "tmp",
  };
  for (const [variable, sub] of Object.entries(dirs)) {
    env[variable] = join(base, sub);
    mkdirSync(env[variable]!, { recursive: true, mode: 0o700 });
  }
  env.PTYHUB_SOCKET = join(base, "runtime", "ptyhub", "daemon.sock");
  mkdirSync(join(base, "work"));
  envs.push(env);
  return env;
}

/** Everything under `dir` made nobody's, so the ptyhub running as nobody can use it. */
function chownTree(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const entry of new Bun.Glob("**").scanSync({ cwd: path, onlyFiles: false, dot: true })) {
    chownSync(join(path, entry), NOBODY, NOBODY);
  }
}

async function startAsNobody(env: Env): Promise<McpClient> {
  const client = await startMcp({
    command: SETPRIV!,
    args: [...AS_NOBODY, process.execPath, CLI],
    env,
    cwd: dir,
  });
  clients.push(client);
  return client;
}

beforeAll(() => {
  if (!runs) return;
  // Not under the test run's root (0700, root's): nobody must reach it.
  dir = mkdtempSync("/tmp/ptyhub-nonroot-");
});
afterAll(async () => {
  if (!runs) return;
  for (const c of clients) await c.close().catch(() => undefined);
  for (const env of envs) {
    Bun.spawnSync([SETPRIV!, ...AS_NOBODY, process.execPath, CLI, "daemon", "--stop"], { env, cwd: dir });
  }
  rmSync(dir, { recursive: true, force: true });
});

async function exec(client: McpClient, session: string, command: string): Promise<string> {
  const r = await client.call("term_exec", { session, command, timeout_ms: EXEC_TIMEOUT_MS });
  expect(r.isError).toBe(false);
  return String(r.data.output);
}

describe.if(runs)("sandbox of a user who is not root", () => {
  test("the session is the user, in a user namespace; ptyhub's directories are empty to it", async () => {
    const env = nobodyEnv("ok");
    const tokenDir = join(env.XDG_STATE_HOME!, "ptyhub");
    mkdirSync(tokenDir, { mode: 0o700 });
    writeFileSync(join(tokenDir, "http-token"), `${TOKEN}\n`, { mode: 0o600 });
    chownTree(dir);
    const mcp = await startAsNobody(env);
    const work = join(dir, "ok", "work");
    const r = await mcp.call("term_open", { name: "nr", cwd: work, command: "bash", sandbox: "read-only" });
    expect(r.error ?? null).toBeNull();
    expect(await exec(mcp, "nr", "id -u; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status")).toMatch(
      new RegExp(`^${NOBODY}\\s[\\s\\S]*CapEff:\\s+0+\\s[\\s\\S]*NoNewPrivs:\\s+1`),
    );
    expect(await exec(mcp, "nr", `cat ${tokenDir}/http-token; ls -A ${tokenDir} | wc -l`)).not.toContain(TOKEN);
    const socket = env.PTYHUB_SOCKET!;
    expect(await exec(mcp, "nr", `socat -u OPEN:/dev/null UNIX-CONNECT:${socket} && echo CONNECTED`)).not.toContain(
      "CONNECTED",
    );
    // The shell-integration scripts and its own reinstall dir, beside the socket in the runtime dir,
    // are still there; the socket is not.
    const runtimeDir = join(env.XDG_RUNTIME_DIR!, "ptyhub");
    const runtime = await exec(mcp, "nr", `ls -A ${runtimeDir}; ls -A ${runtimeDir}/reinstall | wc -l`);
    expect(runtime).toMatch(/^reinstall\s+shell-[0-9a-f]+\s+1\s*$/);
    const outside = join(dir, "ok", "escaped");
    const fork = `env -u PTYHUB_SESSION setsid -f sh -c 'touch ${outside} 2>/dev/null; touch "$TMPDIR/done"'`;
    await exec(mcp, "nr", `${fork}; for i in $(seq 20); do [ -e "$TMPDIR/done" ] && break; sleep 0.25; done`);
    expect(existsSync(outside)).toBe(false);
  }, 60_000);

  test("without unshare(1), term_open with a sandbox is refused: SPAWN_FAILED, nothing started", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    for (const program of NO_UNSHARE_PROGRAMS) {
      const path = Bun.which(program);
      if (path) symlinkSync(path, join(bin, program));
    }
    const env = nobodyEnv("refused", { PATH: bin });
    chownTree(join(dir, "refused"));
    const mcp = await startAsNobody(env);
    const work = join(dir, "refused", "work");
    const r = await mcp.call("term_open", { name: "nr-no", cwd: work, command: "bash", sandbox: "read-only" });
    expect(r.error?.code).toBe("SPAWN_FAILED");
    expect(r.error!.message).toContain("unshare(1) is not installed");
    expect(r.error!.hint).toContain("user namespaces");
    const list = await mcp.call("term_list", {});
    expect(list.data.sessions.map((s: { session: string }) => s.session)).not.toContain("nr-no");
  }, 60_000);
});
