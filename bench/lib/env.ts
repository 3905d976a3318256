/**
 * Isolation and machine facts. Each server runs with a private HOME and XDG directories under one
 * temporary root (removed at the end), a fixed shell, and the run's marker variables.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, freemem, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { RUN_VAR, SERVER_VAR } from "./procs.ts";

export const RUN_ID = `bench-${process.pid}-${Date.now()}`;

let root: string | null = null;
let counter = 0;

/** The run's temporary root, created on first use. */
export function benchRoot(): string {
  root ??= mkdtempSync(join(tmpdir(), "ptyhub-bench-"));
  return root;
}

export function removeBenchRoot(): void {
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
}

/** A fresh isolated environment for one server (or bare shell) labelled `tag`. */
export function isolatedEnv(
  tag: string,
  extra: Record<string, string> = {},
): { env: Record<string, string>; home: string } {
  const dir = join(benchRoot(), `${tag}-${++counter}`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    SHELL: "/bin/bash",
    USER: process.env.USER ?? "bench",
    LOGNAME: process.env.LOGNAME ?? process.env.USER ?? "bench",
    [RUN_VAR]: RUN_ID,
    [SERVER_VAR]: `${tag}-${counter}`,
  };
  for (const [name, sub] of Object.entries({
    HOME: "home",
    XDG_RUNTIME_DIR: "runtime",
    XDG_CONFIG_HOME: "config",
    XDG_STATE_HOME: "state",
    XDG_CACHE_HOME: "cache",
    XDG_DATA_HOME: "data",
    TMPDIR: "tmp",
  })) {
    const path = join(dir, sub);
    mkdirSync(path, { recursive: true, mode: 0o700 });
    env[name] = path;
  }
  // The daemon's socket is per uid by default (/tmp/ptyhub-<uid>): keep each server's its own.
  env.PTYHUB_SOCKET = join(env.XDG_RUNTIME_DIR!, "ptyhub", "daemon.sock");
  // git refuses to commit without an identity; benchmark fixtures commit with a fixed one anyway.
  env.GIT_CONFIG_NOSYSTEM = "1";
  return { env: { ...env, ...extra }, home: env.HOME! };
}

export interface MachineInfo {
  date: string;
  cpu: string;
  nproc: number;
  memory: string;
  os: string;
  kernel: string;
  bun: string;
  node: string | null;
  load: string;
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

export function machineInfo(): MachineInfo {
  const cpuinfo = read("/proc/cpuinfo");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  const osRelease = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(read("/etc/os-release"))?.[1] ?? process.platform;
  const kernel = read("/proc/sys/kernel/osrelease").trim() || "unknown";
  let node: string | null = null;
  try {
    const r = Bun.spawnSync(["node", "--version"], { stdout: "pipe", stderr: "ignore" });
    node = r.exitCode === 0 ? r.stdout.toString().trim() : null;
  } catch {
    node = null;
  }
  const gib = (n: number) => (n / 1024 ** 3).toFixed(1);
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    cpu: model,
    nproc: navigator.hardwareConcurrency || cpus().length,
    memory: `${gib(totalmem())} GiB (${gib(freemem())} GiB free at start)`,
    os: osRelease,
    kernel,
    bun: Bun.version,
    node,
    load: read("/proc/loadavg").split(" ").slice(0, 3).join(" "),
  };
}
