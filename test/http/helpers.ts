/**
 * Pieces of the HTTP transport tests: a real `ptyhub serve --http` process on an ephemeral
 * loopback port (its URL read from what it prints), clients of it (test/helpers/mcp-client.ts),
 * and bookkeeping so every server, client and daemon a test starts is ended by it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, connectHttp, REPO, startMcp, type Env, type McpClient, type StdioMcp } from "../helpers/mcp-client.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { testEnv } from "../daemon/helpers.ts";

export interface HttpServerProc {
  proc: ReturnType<typeof Bun.spawn>;
  pid: number;
  url: string;
  /** Everything the server printed on stdout (its banner). */
  banner: string;
  /** The token a client must send, as the server's banner says where to find it. */
  token: string;
  stderr(): string;
  /** kill -9: no goodbye to anyone. */
  kill(): Promise<void>;
  /** SIGTERM, and its exit code. */
  terminate(): Promise<number | null>;
}

/** How long a starting server may take to print its banner on a loaded 2-core machine. */
const START_TIMEOUT_MS = 20_000;

export async function startHttpServer(env: Env, args: string[] = []): Promise<HttpServerProc> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--http", "--port", "0", ...args], {
    env,
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let err = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) err += dec.decode(chunk, { stream: true });
  })();
  const reader = proc.stdout.getReader();
  const dec = new TextDecoder();
  let banner = "";
  const deadline = Date.now() + START_TIMEOUT_MS;
  // The banner ends with the origins line; the server prints nothing after it.
  while (!/^origins allowed: .*\n/m.test(banner)) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${banner}${err}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited (${await proc.exited}): ${banner}${err}`);
    banner += dec.decode(value, { stream: true });
  }
  reader.releaseLock();
  const url = /at (https?:\/\/\S+\/mcp)$/m.exec(banner)?.[1];
  if (!url) throw new Error(`no URL in the banner: ${banner}`);
  const file = /token in (\S+)>/.exec(banner)?.[1];
  const token = file ? readFileSync(file, "utf8").trim() : (env.PTYHUB_HTTP_TOKEN ?? "");
  const pid = proc.pid;
  return {
    proc,
    pid,
    url,
    banner,
    token,
    stderr: () => err,
    async kill() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
    async terminate() {
      proc.kill("SIGTERM");
      return proc.exited;
    },
  };
}

/** What a test started; `cleanup()` ends it all (clients, HTTP servers, stdio servers, daemons). */
export function httpFixture() {
  const clients: McpClient[] = [];
  const servers: HttpServerProc[] = [];
  const stdio: StdioMcp[] = [];
  const envs: Env[] = [];
  return {
    env(extra: Env = {}): Env {
      const e = testEnv(extra);
      // Each test gets its own config beside its own state dir (token file) and daemon socket.
      e.XDG_CONFIG_HOME = join(e.XDG_STATE_HOME!, "..", "c");
      envs.push(e);
      return e;
    },
    async server(e: Env, args: string[] = []): Promise<HttpServerProc> {
      const s = await startHttpServer(e, args);
      servers.push(s);
      return s;
    },
    async client(
      s: { url: string; token: string },
      name?: string,
      capabilities?: Record<string, unknown>,
    ): Promise<McpClient> {
      const c = await connectHttp(s.url, s.token, { clientName: name ?? "http-test", capabilities });
      clients.push(c);
      return c;
    },
    async stdio(e: Env, name = "stdio-agent"): Promise<StdioMcp> {
      const s = await startMcp({ env: e, clientName: name });
      stdio.push(s);
      return s;
    },
    async cleanup(): Promise<void> {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
      await Promise.allSettled(stdio.splice(0).map((s) => s.close()));
      await Promise.allSettled(
        servers.splice(0).map(async (s) => {
          if (alive(s.pid)) await s.terminate();
          await waitFor(() => !alive(s.pid), 10_000, `HTTP server ${s.pid} to exit`);
        }),
      );
      await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
    },
  };
}
