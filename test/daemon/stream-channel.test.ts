/**
 * The daemon protocol over any duplex byte stream, not only the Unix socket: a real daemon
 * reached through a relay process (socat between its stdio and the socket, as an SSH exec
 * channel would relay), with the hello, host API calls, errors and a large result intact.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AppError } from "../../src/api/errors.ts";
import { DaemonClient } from "../../src/daemon-client/client.ts";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { reachDaemon } from "../../src/daemon-client/start.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import type { Env } from "../helpers/mcp-client.ts";
import { testEnv } from "./helpers.ts";

/** A real daemon, a relay process and a 30,000-line session; generous for a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 60_000;

const envs: Env[] = [];
const relays: Array<ReturnType<typeof Bun.spawn>> = [];

afterEach(async () => {
  for (const r of relays.splice(0)) {
    r.kill("SIGKILL");
    await r.exited;
  }
  for (const e of envs.splice(0)) await stopDaemon(e);
});

/** socat relaying its stdio to the daemon's socket; its pipes as web streams. */
function relay(socket: string) {
  const proc = Bun.spawn(["socat", "-", `UNIX-CONNECT:${socket}`], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  relays.push(proc);
  const writable = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
    close() {
      void proc.stdin.end();
    },
  });
  return { proc, stream: { readable: proc.stdout, writable } };
}

describe("the daemon protocol over a stream", () => {
  test(
    "hello, host API calls, errors and a large result travel through a relay process",
    async () => {
      const env = testEnv();
      envs.push(env);
      // A real daemon, started the usual way.
      (await reachDaemon({ role: "test", env, start: true })).close();
      const { proc, stream } = relay(daemonPaths(env).socket);
      const c = await DaemonClient.overStream(stream, { label: "a socat relay", role: "test" });
      const status = await c.control("status", {});
      expect(status.pid).toBe(c.daemon.pid);
      expect(await c.invoke("list", {})).toEqual([]);
      const missing: unknown = await c.invoke("read", { session: "nope" }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(AppError);
      expect((missing as AppError).code).toBe("SESSION_NOT_FOUND");
      // A session opened through the stream, and a result far larger than one pipe buffer.
      const opened = await c.invoke(
        "open",
        { name: "via-stream", command: "/bin/sh", args: ["-c", "seq 1 30000; exec sleep 60"] },
        { clientId: "stream-test" },
      );
      expect(opened.session).toBe("via-stream");
      // open returned once the output settled; the whole of it is in the history.
      const r = await c.invoke(
        "read",
        { session: "via-stream", mode: "history", from: 1, to: 30000, max_tokens: 200_000 },
        { clientId: "stream-test" },
      );
      const lines = r.output.split("\n");
      expect(r.output.length).toBeGreaterThan(150_000);
      expect(lines.slice(0, 3)).toEqual(["1", "2", "3"]);
      expect(lines[29_999]).toBe("30000");
      await c.invoke("close", { session: "via-stream", signal: "KILL" });
      // Closing the client ends the relay's input, and the relay exits.
      c.close();
      expect(await proc.exited).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
