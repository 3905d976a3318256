/**
 * A real redis-server on loopback for tests of redis-cli (a linenoise line editor), on a port the
 * kernel just handed out, waited on by its own "Ready to accept connections" line.
 */
import { freePort } from "../ssh/sshd.ts";
import { awaitReadyLine } from "./ready-line.ts";

/** How long a loaded machine may take to start redis-server. */
const REDIS_START_TIMEOUT_MS = 15_000;

export interface RedisServer {
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const proc = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdin: "ignore", stdout: "pipe", stderr: "inherit" },
  );
  const ready = await awaitReadyLine(proc.stdout, "Ready to accept connections", REDIS_START_TIMEOUT_MS);
  if (!ready.ok) {
    proc.kill("SIGKILL");
    throw new Error(`redis-server did not start on port ${port}: ${ready.seen}`);
  }
  return {
    port,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
