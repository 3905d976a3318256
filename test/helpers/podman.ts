/**
 * A private Podman for the container tests: `podman system service` serving the Docker-compatible
 * API on its own unix socket, with its own storage (vfs), run root and temp dir inside the test
 * run's temp root, so it touches nothing else on the machine. Containers get explicit ulimits:
 * podman's default open-files limit is above what this machine lets a process set.
 *
 * Stopping it removes the containers, ends the service by pid, then any process still naming its
 * directory (conmon, which double-forks away from the CLI that started it), and unmounts what it
 * left mounted.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isRoot, run, scratchDir } from "../ssh/sshd.ts";
import { mountsUnder } from "./dockerd.ts";
import { alive, waitFor } from "./wait.ts";

export const PODMAN = "/usr/bin/podman";
export const havePodman = isRoot && process.platform === "linux" && existsSync(PODMAN);

/** How long the service may take to answer on its socket on a loaded machine. */
const PODMAN_START_MS = 30_000;
/** How long the service and its conmons may take to exit after SIGTERM before they are killed. */
const PODMAN_STOP_MS = 15_000;
/** Limits a container may have here (the default nofile, 1048576, is refused). */
export const PODMAN_ULIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"];

export interface Podman {
  dir: string;
  socket: string;
  pid: number;
  /** The podman CLI on this instance's storage (set-up only: ptyhub speaks the API). */
  podmanOk(args: string[], opts?: { stdin?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** Pids whose command line names `dir` (the conmons and containers' helpers of this instance). */
function pidsNaming(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(dir)) out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

async function answers(socket: string): Promise<boolean> {
  try {
    return (await fetch("http://podman/_ping", { unix: socket })).ok;
  } catch {
    return false;
  }
}

export async function startPodman(): Promise<Podman> {
  const dir = scratchDir("podman-");
  const socket = join(dir, "podman.sock");
  const global = [
    "--root",
    join(dir, "root"),
    "--runroot",
    join(dir, "run"),
    "--tmpdir",
    join(dir, "tmp"),
    "--storage-driver",
    "vfs",
    "--events-backend",
    "file",
    "--cgroup-manager",
    "cgroupfs",
  ];
  const logPath = join(dir, "podman.log");
  writeFileSync(logPath, "");
  const proc = Bun.spawn([PODMAN, ...global, "system", "service", "--time=0", `unix://${socket}`], {
    stdin: "ignore",
    stdout: Bun.file(logPath),
    stderr: Bun.file(logPath),
  });
  const podmanOk: Podman["podmanOk"] = async (args, opts = {}) => {
    const r = await run([PODMAN, ...global, ...args], opts);
    if (r.code !== 0) throw new Error(`podman ${args.join(" ")} failed (${r.code}): ${r.err}`);
    return r.out.trim();
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await run([PODMAN, ...global, "rm", "-f", "-t", "0", "--all"]);
    process.kill(proc.pid, "SIGTERM");
    const family = () => [proc.pid, ...pidsNaming(dir)].filter(alive);
    try {
      await waitFor(() => family().length === 0, PODMAN_STOP_MS, "podman and its conmons to exit");
    } catch {
      for (const p of family()) process.kill(p, "SIGKILL");
      await waitFor(() => family().length === 0, PODMAN_STOP_MS, "podman and its conmons to die");
    }
    await proc.exited;
    for (const point of mountsUnder(dir)) await run(["umount", "-l", point]);
  };
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null)
          throw new Error(`podman exited (${proc.exitCode}): ${readFileSync(logPath, "utf8")}`);
        return answers(socket);
      },
      PODMAN_START_MS,
      `podman system service to answer on ${socket}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { dir, socket, pid: proc.pid, podmanOk, stop };
}
