/**
 * A private Docker engine for the container tests: Debian's dockerd with its own data root, exec
 * root, pid file and unix socket inside the test run's temp root, no bridge and no iptables rules,
 * so it touches nothing else on the machine. Stopping it ends it and everything it started
 * (containerd and the containers' shims, found by walking /proc before the stop) by pid, and
 * unmounts whatever it left mounted under its directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { descendants, isRoot, run, scratchDir } from "../ssh/sshd.ts";
import { alive, waitFor } from "./wait.ts";

export const DOCKERD = "/usr/sbin/dockerd";
/** Debian's own CLI first: it speaks the API version of Debian's engine. */
export const DOCKER_CLI = existsSync("/usr/bin/docker") ? "/usr/bin/docker" : (Bun.which("docker") ?? "docker");
/** A private engine needs root (mounts, namespaces) and both programs. */
export const haveDocker = isRoot && process.platform === "linux" && existsSync(DOCKERD) && existsSync(DOCKER_CLI);

/** How long dockerd may take to answer on its socket on a loaded 2-core machine (it starts containerd first). */
const DOCKERD_START_MS = 60_000;
/** How long the engine and its children may take to exit after SIGTERM before they are killed. */
const DOCKERD_STOP_MS = 20_000;

export interface Dockerd {
  dir: string;
  /** The engine's unix socket. */
  socket: string;
  pid: number;
  /** Runs the docker CLI against this engine (test set-up only: ptyhub itself never needs it). */
  docker(args: string[], opts?: { stdin?: string }): Promise<{ code: number; out: string; err: string }>;
  /** Like docker(), but throws with the CLI's stderr on failure; returns stdout trimmed. */
  dockerOk(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

async function answers(socket: string): Promise<boolean> {
  try {
    const r = await fetch("http://docker/_ping", { unix: socket });
    return r.ok;
  } catch {
    return false;
  }
}

/** Mount points at or under `dir`, deepest first (so each unmounts before its parent). */
export function mountsUnder(dir: string): string[] {
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .map((p) => p.replace(/\\040/g, " "))
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
  return points.sort((a, b) => b.length - a.length);
}

export async function startDockerd(): Promise<Dockerd> {
  const dir = scratchDir("dockerd-");
  const socket = join(dir, "docker.sock");
  const pidfile = join(dir, "docker.pid");
  for (const d of ["data", "exec"]) mkdirSync(join(dir, d), { recursive: true });
  const logPath = join(dir, "dockerd.log");
  writeFileSync(logPath, "");
  const proc = Bun.spawn(
    [
      DOCKERD,
      "--data-root",
      join(dir, "data"),
      "--exec-root",
      join(dir, "exec"),
      "--pidfile",
      pidfile,
      "-H",
      `unix://${socket}`,
      "--iptables=false",
      "--ip-masq=false",
      "--bridge=none",
      // Its containerd must be its own, not a system one listening on the default socket.
      "--containerd-namespace",
      "ptyhub-test",
    ],
    { stdin: "ignore", stdout: Bun.file(logPath), stderr: Bun.file(logPath) },
  );
  const pid = proc.pid;
  const logTail = () => readFileSync(logPath, "utf8").split("\n").slice(-20).join("\n");
  const docker: Dockerd["docker"] = (args, opts = {}) => run([DOCKER_CLI, "-H", `unix://${socket}`, ...args], opts);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Containers first, quickly: the engine would otherwise give each 10 s to stop on its shutdown.
    const ids = (await docker(["ps", "-aq"])).out.split("\n").filter(Boolean);
    if (ids.length > 0) await docker(["rm", "-f", ...ids]);
    const family = [pid, ...descendants(pid)];
    process.kill(pid, "SIGTERM");
    const gone = () => family.every((p) => !alive(p));
    try {
      await waitFor(gone, DOCKERD_STOP_MS, "dockerd and its children to exit");
    } catch {
      for (const p of family) if (alive(p)) process.kill(p, "SIGKILL");
      await waitFor(gone, DOCKERD_STOP_MS, "dockerd and its children to die");
    }
    await proc.exited;
    for (const point of mountsUnder(dir)) await run(["umount", "-l", point]);
  };
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`dockerd exited (${proc.exitCode}):\n${logTail()}`);
        return answers(socket);
      },
      DOCKERD_START_MS,
      () => `dockerd to answer on ${socket}:\n${logTail()}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    dir,
    socket,
    pid,
    docker,
    async dockerOk(args) {
      const r = await docker(args);
      if (r.code !== 0) throw new Error(`docker ${args.join(" ")} failed (${r.code}): ${r.err}`);
      return r.out.trim();
    },
    stop,
  };
}
