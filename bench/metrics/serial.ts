/**
 * Metric 6, serial lines: ptyhub's serial backend (bun:ffi port + the backend's write queue)
 * beside a bare pty in the same run, both on a socat pty pair whose far end echoes (`cat`):
 * the round trip of a short line, 1 MB each way without loss, and CPU while the line is idle.
 * No MCP here: this measures the line, the part the serial work adds; MCP costs are metric 1's.
 */
import { closeSync, constants as fsConstants, mkdtempSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { openSerialBackend, type SerialBackend } from "../../src/backend/serial/serial-backend.ts";
import { parseSerialSpec } from "../../src/backend/serial/settings.ts";
import { benchRoot } from "../lib/env.ts";
import { fmt, median } from "../lib/stats.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

export const TARGET_ROUND_TRIP_MS = 2;
const BULK_BYTES = 1024 * 1024;
/** CPU time over wall time while idle at most: "≈ 0" is within the noise of an idle Bun process. */
export const TARGET_IDLE_CPU_PERCENT = 0.5;
const STARTUP_TIMEOUT_MS = 10_000;
const BULK_TIMEOUT_MS = 60_000;

/** One end of the line: write bytes, get told about what comes back. */
interface End {
  write(data: Uint8Array): void;
  onData(fn: (data: Uint8Array) => void): void;
  close(): Promise<void>;
}

async function echoLine(dir: string): Promise<{ path: string; proc: Subprocess<"ignore", "ignore", "pipe"> }> {
  const path = join(dir, "ttyBENCH");
  const proc = Bun.spawn(["socat", "-d", "-d", `pty,raw,echo=0,link=${path}`, "EXEC:cat"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let seen = "";
  const timer = setTimeout(() => void reader.cancel(), STARTUP_TIMEOUT_MS);
  while (!seen.includes("starting data transfer loop")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`socat did not start: ${seen}`);
    seen += dec.decode(value, { stream: true });
  }
  clearTimeout(timer);
  reader.releaseLock();
  return { path, proc };
}

/** The bare pty: an O_NONBLOCK fd read by Bun's event loop, written with writeSync + EAGAIN retry. */
function bareEnd(path: string): End {
  const fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK);
  const reader = Bun.file(fd).stream().getReader();
  let sink: (d: Uint8Array) => void = () => undefined;
  let queue: Uint8Array[] = [];
  let writing = false;
  const pumpWrites = async () => {
    if (writing) return;
    writing = true;
    while (queue.length) {
      const buf = Buffer.concat(queue);
      queue = [];
      let off = 0;
      while (off < buf.length) {
        try {
          off += writeSync(fd, buf, off);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
          await Bun.sleep(1);
        }
      }
    }
    writing = false;
  };
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (r.done) return;
      sink(r.value);
    }
  })();
  return {
    write: (d) => {
      queue.push(d);
      void pumpWrites();
    },
    onData: (fn) => (sink = fn),
    close: async () => {
      await reader.cancel().catch(() => undefined);
      closeSync(fd);
    },
  };
}

async function ptyhubEnd(path: string): Promise<End> {
  const backend: SerialBackend = await openSerialBackend(parseSerialSpec({ path, baud: 4_000_000 }));
  let sink: (d: Uint8Array) => void = () => undefined;
  backend.onData((d) => sink(d));
  return {
    write: (d) => backend.write(d),
    onData: (fn) => (sink = fn),
    close: async () => void (await backend.close()),
  };
}

/** Sends `line` and resolves with the ms until all of it came back. */
function roundTrip(end: End, line: string): Promise<number> {
  return new Promise((resolve) => {
    let got = "";
    const t0 = performance.now();
    end.onData((d) => {
      got += new TextDecoder().decode(d);
      if (got.includes(line)) resolve(performance.now() - t0);
    });
    end.write(new TextEncoder().encode(line));
  });
}

/** 1 MB out and the same 1 MB back (cat echoes): ms, and whether every byte came back intact. */
function bulk(end: End): Promise<{ ms: number; intact: boolean }> {
  const data = new Uint8Array(BULK_BYTES);
  for (let i = 0; i < data.length; i++) data[i] = 32 + (i % 90); // printable: a raw pty keeps them all
  return new Promise((resolve, reject) => {
    const back = new Uint8Array(BULK_BYTES);
    let n = 0;
    const t0 = performance.now();
    const timer = setTimeout(
      () => reject(new Error(`bulk: ${n} of ${BULK_BYTES} bytes back after ${BULK_TIMEOUT_MS} ms`)),
      BULK_TIMEOUT_MS,
    );
    end.onData((d) => {
      back.set(d.subarray(0, Math.min(d.length, BULK_BYTES - n)), n);
      n += d.length;
      if (n >= BULK_BYTES) {
        clearTimeout(timer);
        resolve({ ms: performance.now() - t0, intact: n === BULK_BYTES && Buffer.compare(back, data) === 0 });
      }
    });
    end.write(data);
  });
}

/** Before measuring idle cost, let the work just done (garbage collection, JIT) finish. */
const IDLE_SETTLE_MS = 500;

/** CPU ms this process used while the line was open and silent for `ms`. */
async function idleCpuMs(ms: number): Promise<number> {
  await Bun.sleep(IDLE_SETTLE_MS);
  const c0 = process.cpuUsage();
  await Bun.sleep(ms);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

export async function serial(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult(
    "serial",
    "6. Serial line: round trip, 1 MB each way, idle CPU (socat pty pair, far end `cat`)",
  );
  const iterations = ctx.smoke ? 20 : 200;
  const idleMs = ctx.smoke ? 2000 : 5000;
  const dir = mkdtempSync(join(benchRoot(), "serial-"));
  const line = await echoLine(dir);
  try {
    const subjects: Array<{ label: string; open: () => Promise<End> }> = [
      { label: "ptyhub serial backend", open: () => ptyhubEnd(line.path) },
      { label: "bare pty (fd + event loop)", open: async () => bareEnd(line.path) },
    ];
    const rtt: Row[] = [];
    const bulkRows: Row[] = [];
    const idleRows: Row[] = [];
    for (const s of subjects) {
      const end = await s.open();
      try {
        for (let i = 0; i < 5; i++) await roundTrip(end, `warm ${i}\n`);
        const samples: number[] = [];
        for (let i = 0; i < iterations; i++) samples.push(await roundTrip(end, `ping ${i}\n`));
        rtt.push({ subject: s.label, unit: "ms", samples, baseline: "bare pty (fd + event loop)" });
        // Idle before the bulk transfer, so its garbage collection does not count as idle cost.
        const cpuMs = await idleCpuMs(idleMs);
        idleRows.push({
          subject: s.label,
          unit: "ms",
          samples: [],
          value: cpuMs,
          note: `CPU time in ${idleMs} ms idle: ${fmt((cpuMs / idleMs) * 100)} %`,
        });
        const b = await bulk(end);
        bulkRows.push({
          subject: s.label,
          unit: "ms",
          samples: [b.ms],
          correct: { ok: b.intact ? 1 : 0, of: 1 },
          note: `${fmt(BULK_BYTES / 1024 / 1024 / (b.ms / 1000))} MB/s each way`,
        });
        if (!b.intact) res.errors.push(`${s.label}: 1 MB each way came back altered or short`);
      } finally {
        await end.close();
      }
    }
    res.tables.push({ title: "Short line round trip", rows: rtt, kind: "latency" });
    res.tables.push({ title: "1 MB out and 1 MB back (echoed by the far end)", rows: bulkRows, kind: "value" });
    res.tables.push({ title: "Idle CPU", rows: idleRows, kind: "value" });
    const hubRtt = median(rtt[0]!.samples);
    res.checks.push({
      goal: `round trip of a short line ≤ ${TARGET_ROUND_TRIP_MS} ms (median)`,
      actual: `${fmt(hubRtt)} ms`,
      met: hubRtt !== null && hubRtt <= TARGET_ROUND_TRIP_MS,
    });
    res.checks.push({
      goal: "1 MB each way without loss",
      actual: bulkRows[0]!.correct!.ok === 1 ? "intact" : "LOST DATA",
      met: bulkRows[0]!.correct!.ok === 1,
    });
    const cpuMs = idleRows[0]!.value ?? null;
    const cpu = cpuMs === null ? null : (cpuMs / idleMs) * 100;
    res.checks.push({
      goal: `idle CPU ≈ 0 (≤ ${TARGET_IDLE_CPU_PERCENT} %)`,
      actual: `${fmt(cpu)} %`,
      met: cpu !== null && cpu <= TARGET_IDLE_CPU_PERCENT,
    });
  } finally {
    line.proc.kill("SIGTERM");
    await line.proc.exited;
  }
  return res;
}
