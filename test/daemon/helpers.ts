/**
 * Shared pieces of the daemon tests: a private runtime/state directory per test (so daemons never
 * meet), bookkeeping of the MCP servers (test/helpers/mcp-client.ts) and daemons a test starts,
 * and the leftover check (no daemon, shell or zombie survives a test file).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, startMcp, type Env, type StdioMcp, type ToolResult } from "../helpers/mcp-client.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { waitFor } from "../helpers/wait.ts";

/** Every process a daemon test starts carries this tag, so the leftover check can find it. */
export const TAG = `daemon-test-${process.pid}-${Date.now()}`;

/**
 * An environment with its own XDG_RUNTIME_DIR (PTYHUB_SOCKET points there: its own daemon) and state dir (log).
 * Kept short: a Unix socket path must fit in 104 bytes.
 */
export function testEnv(extra: Env = {}): Env {
  const root = process.env.PTYHUB_TEST_ROOT ?? tmpdir();
  const dir = mkdtempSync(join(root, "d-"));
  const env: Env = {
    ...(process.env as Env),
    XDG_RUNTIME_DIR: join(dir, "r"),
    XDG_STATE_HOME: join(dir, "s"),
    SHELL: "/bin/bash",
    PTYHUB_DAEMON_TEST_TAG: TAG,
    PTYHUB_LOG_LEVEL: "info",
    ...extra,
  };
  delete env.PTYHUB_PERSISTENT;
  // The socket is per uid unless PTYHUB_SOCKET says otherwise: put it in this env's runtime dir.
  env.PTYHUB_SOCKET = extra.PTYHUB_SOCKET ?? join(env.XDG_RUNTIME_DIR!, "ptyhub", "daemon.sock");
  mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  return env;
}

export function errorCode(r: ToolResult): string | null {
  return r.error?.code ?? null;
}

/** Runs the CLI (ls, kill, daemon --status …) to completion. */
export async function runCli(
  env: Env,
  args: string[],
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  cmd: string;
}

function procInfo(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").trim();
    return { pid, ppid: Number(fields[1]), state: fields[0]!, cmd };
  } catch {
    return null;
  }
}

/**
 * Processes started by these tests that are still around: anything carrying TAG in its
 * environment (daemons, MCP servers, shells), and zombies among our own children (unreaped).
 */
export function leftovers(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const info = procInfo(pid);
    if (!info) continue;
    if (info.state === "Z") {
      if (info.ppid === process.pid) out.push(info);
      continue;
    }
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(`PTYHUB_DAEMON_TEST_TAG=${TAG}`)) out.push(info);
    } catch {
      // Not ours to read, or gone.
    }
  }
  return out;
}

/** Waits for every tagged process to be gone; returns what is left after `ms`. */
export async function settleLeftovers(ms = 5000): Promise<ProcInfo[]> {
  await waitFor(() => leftovers().length === 0, ms, "the tagged processes to end").catch(() => undefined);
  return leftovers();
}

/** Live daemon processes serving this env's socket (by their XDG_RUNTIME_DIR). */
export function daemonsFor(env: Env): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const info = procInfo(pid);
    if (!info || info.state === "Z" || !/ daemon$/.test(info.cmd)) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
      if (environ.includes(`XDG_RUNTIME_DIR=${env.XDG_RUNTIME_DIR}`)) out.push(pid);
    } catch {
      // Gone.
    }
  }
  return out;
}

/** Children of `pid`, with their state (Z: an unreaped zombie). */
export function childrenOf(pid: number): Array<{ pid: number; state: string; cmd: string }> {
  const out: Array<{ pid: number; state: string; cmd: string }> = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const info = procInfo(Number(name));
    if (info && info.ppid === pid) out.push({ pid: info.pid, state: info.state, cmd: info.cmd });
  }
  return out;
}

/**
 * Per-file bookkeeping of what a test started: environments (each may have started a daemon)
 * and MCP servers. `cleanup()` ends them all; call it after each test.
 */
export function fixture() {
  const servers: StdioMcp[] = [];
  const envs: Env[] = [];
  return {
    env(extra: Env = {}): Env {
      const e = testEnv(extra);
      envs.push(e);
      return e;
    },
    async server(e: Env, name = "agent"): Promise<StdioMcp> {
      const s = await startMcp({ env: e, clientName: name });
      servers.push(s);
      return s;
    },
    async cleanup(): Promise<void> {
      await Promise.allSettled(servers.splice(0).map((s) => s.close()));
      await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
    },
  };
}
