/**
 * The daemon's control from tests: its status, and stopping it (waiting until its process is
 * gone). The one copy for every test that opened persistent sessions.
 */
import { reachDaemon } from "../../src/daemon-client/start.ts";
import { DaemonConnectError } from "../../src/daemon-client/client.ts";
import type { DaemonStatus } from "../../src/daemon-client/control-table.ts";
import { alive, waitFor } from "./wait.ts";

type Env = Record<string, string | undefined>;

/** How long a stopping daemon may take to end its sessions and exit on a loaded machine. */
const DAEMON_EXIT_MS = 15_000;

/** The daemon's status, or null when none runs; `env` (over this process's) locates its socket. */
export async function daemonStatus(env: Env = {}): Promise<DaemonStatus | null> {
  try {
    const c = await reachDaemon({ role: "test", env: { ...process.env, ...env }, start: false });
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

/** Stops the daemon of `env` (over this process's environment), if any, and waits until its process is gone. */
export async function stopDaemon(env: Env = {}): Promise<void> {
  const st = await daemonStatus(env);
  if (!st) return;
  const c = await reachDaemon({ role: "test", env: { ...process.env, ...env }, start: false });
  await c.control("stop", {}).catch(() => undefined);
  c.close();
  await waitFor(() => !alive(st.pid), DAEMON_EXIT_MS, `daemon ${st.pid} to exit`);
}
