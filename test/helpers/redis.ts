/**
 * A real redis-server on loopback for tests of redis-cli (a linenoise line editor). The port is
 * one the kernel just handed out (bound and released), and the server is waited on by its own
 * "Ready to accept connections" line, never by a sleep.
 */
import { createServer } from "node:net";
import type { Subprocess } from "bun";

/** How long a loaded machine may take to start redis-server. */
const REDIS_START_TIMEOUT_MS = 15_000;

export interface RedisServer {
  port: number;
  stop(): Promise<void>;
}

async function freeLoopbackPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const addr = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (addr === null || typeof addr === "string") throw new Error("no TCP address for a probe socket");
  return addr.port;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freeLoopbackPort();
  const proc: Subprocess<"ignore", "pipe", "inherit"> = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdin: "ignore", stdout: "pipe", stderr: "inherit" },
  );
  const decoder = new TextDecoder();
  let seen = "";
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + REDIS_START_TIMEOUT_MS;
  while (!seen.includes("Ready to accept connections")) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (next === null || next.done) {
      proc.kill("SIGKILL");
      throw new Error(`redis-server did not start on port ${port}: ${seen.slice(-500)}`);
    }
    seen += decoder.decode(next.value, { stream: true });
  }
  // Keep draining its log so a full pipe never blocks it.
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  return {
    port,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
