/**
 * The local backend on a PTY we own: controlling terminal through both launch steps (util-linux
 * `setsid --ctty` and ptyhub's own `__pty-exec`), exit codes, tty modes and the foreground group
 * read from the tty, resize, backpressure on a flood, no polling when idle, and no leaked fds.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { CttyLauncher } from "../../src/backend/local/pty/launcher.ts";
import { Emulator } from "../../src/terminal/emulator.ts";
import { BASH, PtyProbe } from "../helpers/pty.ts";
import { waitFor } from "../helpers/wait.ts";

/** How long a PTY state (a foreground program, a tty mode, a flood) may take to show on a loaded machine. */
const PTY_WAIT_MS = 10_000;

const probes: PtyProbe[] = [];
function probe(argv: string[], cttyLauncher?: CttyLauncher): PtyProbe {
  const p = new PtyProbe(argv, { cttyLauncher });
  probes.push(p);
  return p;
}
afterAll(async () => {
  await Promise.all(probes.map((p) => p.backend.close("KILL")));
});

const PROMPT = (rc: number) => new RegExp(`\\[rc=${rc}\\]\\$ $`);

function ptmxFds(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === "/dev/ptmx";
    } catch {
      return false;
    }
  }).length;
}

for (const launcher of ["setsid", "self"] as const) {
  describe(`controlling terminal via ${launcher}`, () => {
    test("the program is the session leader with the PTY as its tty; ctrl+c, SIGPIPE, exit codes work", async () => {
      const sh = probe(BASH, launcher);
      await sh.waitFor(PROMPT(0), 15_000);
      // Same pid as the program (the launch step execs), a session leader owning the tty.
      sh.backend.write("echo pid=$$ sid=$(ps -o sid= $$) tty=$(tty)\r");
      const m = await sh.waitFor(/pid=(\d+) sid=\s*(\d+) tty=(\/dev\/pts\/\d+)/);
      expect(Number(m[1])).toBe(sh.backend.pid);
      expect(Number(m[2])).toBe(sh.backend.pid);
      // ctrl+c reaches the foreground job through the tty (not a signal we send).
      sh.clear();
      sh.backend.write("sleep 60\r");
      await waitFor(() => sh.backend.foregroundCommands().includes("sleep"), PTY_WAIT_MS, "sleep in the foreground");
      sh.backend.write("\x03");
      await sh.waitFor(PROMPT(130));
      // SIGPIPE is at its default for the program's children (Bun ignores it in its own process).
      sh.clear();
      sh.backend.write("yes | head -1 >/dev/null; echo status=${PIPESTATUS[0]}\r");
      expect((await sh.waitFor(/status=(\d+)/))[1]).toBe("141");
      sh.backend.write("exit 7\r");
      expect((await sh.exited()).exitCode).toBe(7);
    });
  });
}

describe("owned PTY", () => {
  test("tty modes come from the slave side and follow the program; resize reaches it", async () => {
    const sh = probe(BASH);
    await sh.waitFor(PROMPT(0));
    // readline edits the line itself: no echo, no canonical mode.
    expect(sh.backend.ttyModes()).toEqual({ echo: false, canonical: false });
    sh.backend.write("cat\r");
    await waitFor(() => sh.backend.ttyModes()?.canonical, PTY_WAIT_MS, "canonical mode");
    expect(sh.backend.ttyModes()).toEqual({ echo: true, canonical: true });
    expect(sh.backend.foregroundCommands()).toEqual(["cat"]);
    sh.backend.write("\x04");
    await sh.waitFor(PROMPT(0));
    sh.clear();
    sh.backend.resize(123, 45);
    sh.backend.write("stty size\r");
    await sh.waitFor(/[\r\n]45 123\r\n/);
    await sh.backend.close();
    expect(sh.backend.ttyModes()).toBeNull();
  });

  test("the last output arrives before the exit, with the exit code", async () => {
    const p = probe(["/bin/sh", "-c", "printf 'last words'; exit 3"]);
    const info = await p.exited();
    expect(p.tail).toContain("last words");
    expect(info).toMatchObject({ exitCode: 3, signal: null });
  });

  test("a program killed by a signal reports 128+n", async () => {
    const p = probe(["/bin/sh", "-c", "kill -TERM $$"]);
    expect(await p.exited()).toMatchObject({ exitCode: 143, signal: "SIGTERM" });
  });

  test("a flood against a slow reader blocks the program instead of filling memory", async () => {
    const PARSE_COST_MS = 20;
    const em = new Emulator({ cols: 100, rows: 30 });
    let chunks = 0;
    let maxChunk = 0;
    const flood = probe(["yes", "a line of flood output that goes on"]);
    const rss0 = process.memoryUsage().rss;
    flood.backend.onData((data) => {
      chunks++;
      maxChunk = Math.max(maxChunk, data.length);
      em.ingest(data);
      const until = performance.now() + PARSE_COST_MS;
      while (performance.now() < until); // a consumer slower than the producer
    });
    await waitFor(() => chunks >= 20, PTY_WAIT_MS, "20 chunks");
    const chunksBefore = chunks;
    // yes is asleep in write(2) on the full PTY: the kernel holds it back, not our memory.
    const state = await waitFor(
      () => {
        const stat = readFileSync(`/proc/${flood.backend.pid}/stat`, "latin1");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "S" ? "S" : null;
      },
      PTY_WAIT_MS,
      "yes to be asleep in write(2)",
    );
    expect(state).toBe("S");
    const read = (chunks - chunksBefore) * maxChunk;
    // Bounded by the consumer's pace (≤ one chunk per PARSE_COST_MS), not by yes's speed.
    expect(maxChunk).toBeLessThanOrEqual(256 * 1024);
    expect(read).toBeLessThan(64 * 1024 * 1024);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(100 * 1024 * 1024);
    await flood.backend.close("KILL");
  });

  test("idle sessions cost no CPU (no polling reader) and closing releases the master", async () => {
    const before = ptmxFds();
    const idle = Array.from({ length: 5 }, () => probe(BASH));
    for (const p of idle) await p.waitFor(PROMPT(0));
    // Our master per session, plus the dup Bun reads (released on its own thread, so counted loosely).
    expect(ptmxFds()).toBeGreaterThanOrEqual(before + 5);
    // The flood test before this one leaves garbage; collecting it is not the idle sessions' cost
    // (a full run under load once measured 108 ms here, the collector's work).
    Bun.gc(true);
    const cpu0 = process.cpuUsage();
    await Bun.sleep(1000); // measuring an interval of idleness, not waiting for an event
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(`5 idle sessions: ${cpuMs.toFixed(1)} ms CPU in 1 s`);
    expect(cpuMs).toBeLessThan(50);
    const t0 = performance.now();
    await Promise.all(idle.map((p) => p.backend.close()));
    for (const p of idle) expect(p.exit?.signal).toBe("SIGHUP");
    expect(performance.now() - t0).toBeLessThan(5000);
    await waitFor(() => ptmxFds() <= before, 3000, "the ptmx descriptors to be closed");
  });
});
