/**
 * A real PostgreSQL server on loopback for tests of psql. PostgreSQL refuses to run as root,
 * which the tests may run as: then the cluster belongs to `nobody` and the server is exec'ed
 * under that user by setpriv (no intermediate process, so its pid is the server's). Trust
 * authentication on 127.0.0.1 only; the server is waited on by its "ready to accept connections"
 * line, never by a sleep.
 */
import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../ssh/sshd.ts";
import { awaitReadyLine } from "./ready-line.ts";

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
  if (init.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr.toString().slice(-500)}`);
  }
  const port = await freePort();
  const proc = Bun.spawn(
    [...as, pgBin("postgres"), "-D", data, "-k", dir, "-p", String(port), "-c", "listen_addresses=127.0.0.1"],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
  );
  const ready = await awaitReadyLine(proc.stderr, "ready to accept connections", PG_START_TIMEOUT_MS);
  if (!ready.ok) {
    proc.kill("SIGKILL");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`postgres did not start on port ${port}: ${ready.seen}`);
  }
  return {
    port,
    async stop() {
      proc.kill("SIGINT"); // fast shutdown: ends its backends too
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
