/**
 * Processes of this benchmark run: every process the harness starts carries PTYHUB_BENCH_RUN (and
 * which server it belongs to in PTYHUB_BENCH_SERVER) in its environment, and children inherit it,
 * so whatever a server leaves behind can be found in /proc, reported, and ended by pid.
 */
import { readdirSync, readFileSync } from "node:fs";

export const RUN_VAR = "PTYHUB_BENCH_RUN";
export const SERVER_VAR = "PTYHUB_BENCH_SERVER";

/** Resident set size of one process in MB (VmRSS), or null when it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "latin1");
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Proportional set size of one process in MB (smaps_rollup Pss), or null when it is gone: its
 * resident pages, each shared page divided among the processes mapping it. Summed over processes
 * that share pages (ptyhub's MCP server and daemon run one executable), it counts those pages
 * once, where a sum of RSS counts them once per process.
 */
export function pssMb(pid: number): number | null {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "latin1");
    const m = /^Pss:\s+(\d+)\s+kB/m.exec(rollup);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) one process has used, in seconds, or null when it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // After "(comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux architecture we build for. */
const CLOCK_TICKS_PER_SECOND = 100;

interface ProcInfo {
  pid: number;
  cmd: string;
}

/** Live processes whose environment contains `NAME=value` (zombies excluded). */
export function processesWithEnv(name: string, value: string): ProcInfo[] {
  const needle = `${name}=${value}\0`;
  const out: ProcInfo[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state === "Z" || state === "X") continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1") + "\0";
      if (!environ.includes(needle)) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ").trim();
      out.push({ pid: Number(entry), cmd });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return out;
}

/** Waits up to `ms` for the processes matching NAME=value to end by themselves; returns the rest. */
export async function awaitGone(name: string, value: string, ms: number): Promise<ProcInfo[]> {
  const deadline = Date.now() + ms;
  let left = processesWithEnv(name, value);
  while (left.length > 0 && Date.now() < deadline) {
    await Bun.sleep(50);
    left = processesWithEnv(name, value);
  }
  return left;
}

/** SIGKILLs each process by pid. */
export function killAll(procs: readonly ProcInfo[]): void {
  for (const p of procs) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
