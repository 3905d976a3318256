/**
 * A real PostgreSQL server on loopback for tests of psql. PostgreSQL refuses to run as root,
 * which the tests may run as: then the cluster belongs to `nobody` and the server is exec'ed
 * under that user by setpriv (no intermediate process, so its pid is the server's). Trust
 * authentication on 127.0.0.1 only; the server is waited on by its "ready to accept connections"
 * line, never by a sleep.
 */
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";

/** initdb and the first start of a cluster on a loaded machine. */
const PG_START_TIMEOUT_MS = 60_000;
const NOBODY = 65534;

export interface PostgresServer {
  port: number;
  stop(): Promise<void>;
}

function pgBin(name: string): string {
  const root = "/usr/lib/postgresql";
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL under ${root}`);
  return join(root, versions[0]!, "bin", name);
}

async function freeLoopbackPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const addr = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (addr === null || typeof addr === "string") throw new Error("no TCP address for a probe socket");
  return addr.port;
}

export async function startPostgres(): Promise<PostgresServer> {
  const asRoot = process.getuid?.() === 0;
  // Under /tmp, not the test root: that is 0700 root's, which `nobody` cannot enter.
  const dir = mkdtempSync(join("/tmp", "ptyhub-pg-"));
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  const as = asRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"] : [];
  const data = join(dir, "data");
  const init = Bun.spawnSync([...as, pgBin("initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString().slice(-500)}`);
  const port = await freeLoopbackPort();
  const proc = Bun.spawn(
    [...as, pgBin("postgres"), "-D", data, "-k", dir, "-p", String(port), "-c", "listen_addresses=127.0.0.1"],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
  );
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + PG_START_TIMEOUT_MS;
  while (!seen.includes("ready to accept connections")) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (next === null || next.done) {
      proc.kill("SIGKILL");
      throw new Error(`postgres did not start on port ${port}: ${seen.slice(-500)}`);
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
      proc.kill("SIGINT"); // fast shutdown: ends its backends too
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
