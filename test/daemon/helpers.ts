/**
 * Shared pieces of the daemon tests: a private runtime/state directory per test (so daemons never
 * meet), MCP servers driven through the official SDK client, daemon control, barriers instead of
 * sleeps, and the leftover check (no daemon, shell or zombie survives a test file).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { reachDaemon } from "../../src/daemon/start.ts";
import { DaemonConnectError } from "../../src/daemon/client.ts";
import type { DaemonStatus } from "../../src/daemon/control-table.ts";

export const REPO = resolve(import.meta.dir, "..", "..");
export const CLI = join(REPO, "src", "cli.ts");

export type Env = Record<string, string>;

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

export interface McpServer {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  close(): Promise<void>;
  /** kill -9: no chance to say goodbye to anyone. */
  kill(): Promise<void>;
}

export async function startServer(env: Env, name = "test"): Promise<McpServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI],
    env,
    stderr: "pipe",
    cwd: REPO,
  });
  const client = new Client({ name, version: "0" });
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    transport,
    pid,
    close: () => client.close(),
    kill: async () => {
      process.kill(pid, "SIGKILL");
      await waitFor(() => !alive(pid), 5000, `MCP server ${pid} to die`);
      await client.close().catch(() => undefined);
    },
  };
}

export interface ToolResult {
  isError: boolean;
  data: Record<string, unknown>;
  text: string;
}

export async function call(server: McpServer, tool: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  const r = (await server.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: Array<{ text?: string }>;
  };
  return { isError: r.isError === true, data: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? "" };
}

/** Like call, but fails the test with the error text when the tool failed. */
export async function ok(
  server: McpServer,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const r = await call(server, tool, args);
  if (r.isError) throw new Error(`${tool} failed: ${r.text}`);
  return r.data;
}

export function errorCode(r: ToolResult): string | null {
  return r.isError ? ((r.data.error as { code?: string } | undefined)?.code ?? null) : null;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purposes (its parent reaps it).
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/** Polls `cond` (a barrier on observable state) until true, or fails after `ms`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  let delay = 5;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(delay);
    delay = Math.min(delay * 2, 100);
  }
}

export async function daemonStatus(env: Env): Promise<DaemonStatus | null> {
  try {
    const c = await reachDaemon({ role: "test", env, start: false });
    try {
      return await c.control("status", {});
    } finally {
      c.close();
    }
  } catch (err) {
    if (err instanceof DaemonConnectError && err.notRunning) return null;
    throw err;
  }
}

/** Stops the env's daemon (if any) and waits until its process is gone. */
export async function stopDaemon(env: Env): Promise<void> {
  const st = await daemonStatus(env);
  if (!st) return;
  const c = await reachDaemon({ role: "test", env, start: false });
  await c.control("stop", {}).catch(() => undefined);
  c.close();
  await waitFor(() => !alive(st.pid), 15_000, `daemon ${st.pid} to exit`);
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
  const deadline = Date.now() + ms;
  let left = leftovers();
  while (left.length > 0 && Date.now() < deadline) {
    await Bun.sleep(50);
    left = leftovers();
  }
  return left;
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
  const servers: McpServer[] = [];
  const envs: Env[] = [];
  return {
    env(extra: Env = {}): Env {
      const e = testEnv(extra);
      envs.push(e);
      return e;
    },
    async server(e: Env, name = "agent"): Promise<McpServer> {
      const s = await startServer(e, name);
      servers.push(s);
      return s;
    },
    async cleanup(): Promise<void> {
      await Promise.allSettled(servers.splice(0).map((s) => s.close()));
      await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
    },
  };
}
