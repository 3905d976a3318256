/**
 * A real npm registry on loopback for the release rehearsal: verdaccio, installed with npm into a
 * directory of the test's own, proxying nothing (`uplinks: {}`), so a package installed from it is
 * one the test published there or nothing.
 */
import { mkdirSync, openSync, closeSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../ssh/sshd.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { runProcess } from "./helpers.ts";

/** 6.10 wants Node 22; 6.8.0 is the newest that runs on the Node 20 CI has. */
export const VERDACCIO_VERSION = "6.8.0";
/**
 * What makes 6.8.0 install on Node 20: its node-fetch 3 would need a newer Node; 2.7.0 is the
 * release verdaccio's code works with.
 */
const NODE_FETCH_OVERRIDE = "2.7.0";
/** A cold npm cache fetches ~330 packages: ~20 s here, more on a slow network. */
const INSTALL_TIMEOUT_MS = 180_000;
/** It answered /-/ping in ~4 s here; room for a loaded CI machine. */
const START_TIMEOUT_MS = 60_000;
/** Another process may take the free port between our check and verdaccio's listen: try again. */
const START_ATTEMPTS = 3;
/** How long verdaccio may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 10_000;
/**
 * The platform package holds the ~110 MiB binary (~50 MiB gzipped); verdaccio's default request
 * limit (10 MB) would refuse its publish.
 */
const MAX_BODY_SIZE = "500mb";

export interface Verdaccio {
  /** http://127.0.0.1:PORT/ */
  url: string;
  port: number;
  pid: number;
  /** Its log so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * This machine's way out to the npm registry (a proxy, a CA of its own that TLS goes through):
 * installing verdaccio is the one step that leaves loopback, and it needs what every npm here needs.
 */
const NETWORK_VARIABLES = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
];

function networkEnv(): Record<string, string> {
  return Object.fromEntries(
    NETWORK_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
}

/**
 * Installs verdaccio into `dir` (its own package.json, the override) with npm's settings in `env`
 * and the machine's network settings.
 */
export async function installVerdaccio(dir: string, env: Record<string, string>): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const manifest = {
    private: true,
    dependencies: { verdaccio: VERDACCIO_VERSION },
    overrides: { "node-fetch": NODE_FETCH_OVERRIDE },
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  const npm = Bun.which("npm");
  if (!npm) throw new Error("npm is not on PATH");
  const result = await runProcess([npm, "install", "--no-audit", "--no-fund", "--no-update-notifier"], {
    cwd: dir,
    env: { ...env, ...networkEnv() },
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (result.code !== 0) throw new Error(`npm install verdaccio@${VERDACCIO_VERSION} failed:\n${result.stderr}`);
  return join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
}

/** A config with nothing proxied, anyone allowed to read and publish, storage inside `dir`. */
function writeConfig(dir: string): string {
  const storage = join(dir, "storage");
  mkdirSync(storage, { recursive: true });
  const config = [
    `storage: ${JSON.stringify(storage)}`,
    `auth:`,
    `  htpasswd:`,
    `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
    `uplinks: {}`,
    `packages:`,
    `  '**':`,
    `    access: $all`,
    `    publish: $anonymous`,
    `max_body_size: ${MAX_BODY_SIZE}`,
    `web:`,
    `  enable: false`,
    `log: { type: stdout, format: pretty, level: warn }`,
    ``,
  ].join("\n");
  const path = join(dir, "config.yaml");
  writeFileSync(path, config);
  return path;
}

async function answersPing(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}-/ping`)).ok;
  } catch {
    return false;
  }
}

/** Starts verdaccio (`bin` from installVerdaccio) on a free loopback port; its files stay in `dir`. */
export async function startVerdaccio(dir: string, bin: string, env: Record<string, string>): Promise<Verdaccio> {
  const node = Bun.which("node");
  if (!node) throw new Error("node is not on PATH");
  const config = writeConfig(dir);
  const logPath = join(dir, "verdaccio.log");
  const log = () => readFileSync(logPath, "utf8");
  let failures = "";
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const logFd = openSync(logPath, "w");
    const proc = Bun.spawn([node, bin, "--config", config, "--listen", `127.0.0.1:${port}`], {
      cwd: dir,
      env,
      stdin: "ignore",
      stdout: logFd,
      stderr: logFd,
    });
    closeSync(logFd);
    const pid = proc.pid;
    const up = await waitFor(
      async () => ((await answersPing(url)) ? "up" : proc.exitCode !== null ? "exited" : false),
      START_TIMEOUT_MS,
      () => `verdaccio on ${url} to answer /-/ping:\n${log()}`,
    ).catch((err: unknown) => {
      // Never left running behind a failed start.
      proc.kill("SIGKILL");
      throw err;
    });
    if (up === "up") {
      return {
        url,
        port,
        pid,
        log,
        async stop() {
          if (!alive(pid)) return;
          process.kill(pid, "SIGTERM");
          try {
            await waitFor(() => !alive(pid), STOP_TIMEOUT_MS, `verdaccio ${pid} to exit`);
          } catch {
            process.kill(pid, "SIGKILL");
            await proc.exited;
          }
        },
      };
    }
    failures += `attempt ${attempt} on port ${port}:\n${log()}\n`;
  }
  throw new Error(`verdaccio did not start:\n${failures}`);
}
