/**
 * Diagnostic: the owned-PTY reader on its own, without MCP or a session on top.
 *
 *   bun bench/diag/owned-pty.ts
 *
 * 1. `seq 1 200000` in sh, parsed by ptyhub's Emulator, until its last line: LocalBackend (owned
 *    master, sliced reads) against Bun.Terminal (Bun.spawn's terminal option), interleaved.
 * 2. While `yes` floods session A (LocalBackend, parsed), `echo hi` round trips in session B
 *    (LocalBackend): p50/p95/max, and the read chunk sizes.
 * Prints the load average, since the machine may be shared.
 */
import { loadavg } from "node:os";
import { LocalBackend } from "../../src/backend/local/local-backend.ts";
import { Emulator } from "../../src/terminal/emulator.ts";
import { quantile } from "../lib/stats.ts";

const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  TERM: "xterm-256color",
  HOME: "/tmp",
  PS1: "P> ",
  HISTFILE: "/dev/null",
};
const RUNS = 8;
const FLOOD_MS = 4000;
const f = (xs: number[], q: number) => (quantile(xs, q) ?? 0).toFixed(1);

function owned(argv: string[], onData: (d: Uint8Array) => void): LocalBackend {
  const b = new LocalBackend({ argv, cwd: "/tmp", env, cols: 120, rows: 40 });
  b.onData(onData);
  return b;
}

async function seqOwned(): Promise<number> {
  const em = new Emulator({ cols: 120, rows: 40 });
  let tail = "";
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const b = owned(["/bin/sh", "-c", "seq 1 200000"], (d) => {
      em.ingest(d);
      tail = (tail + Buffer.from(d).toString("latin1")).slice(-20);
      if (tail.includes("200000")) resolve();
    });
    b.onExit(() => resolve());
  });
  return performance.now() - t0;
}

async function seqTerminal(): Promise<number> {
  const em = new Emulator({ cols: 120, rows: 40 });
  let tail = "";
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    Bun.spawn(["/bin/sh", "-c", "seq 1 200000"], {
      env,
      terminal: {
        cols: 120,
        rows: 40,
        data: (_t, d) => {
          em.ingest(d);
          tail = (tail + Buffer.from(d).toString("latin1")).slice(-20);
          if (tail.includes("200000")) resolve();
        },
      },
    });
  });
  return performance.now() - t0;
}

console.log(`load average before: ${loadavg()[0]!.toFixed(2)}`);
const o: number[] = [];
const t: number[] = [];
for (let i = 0; i < RUNS; i++) {
  if (i % 2) o.push(await seqOwned());
  t.push(await seqTerminal());
  if (!(i % 2)) o.push(await seqOwned());
}
console.log(`seq 1 200000 + Emulator: owned p50 ${f(o, 0.5)} ms, Bun.Terminal p50 ${f(t, 0.5)} ms (${RUNS} runs each)`);

const chunks: number[] = [];
const emA = new Emulator({ cols: 120, rows: 40 });
const a = owned(["yes", "flood flood flood flood flood flood flood flood"], (d) => {
  chunks.push(d.length);
  emA.ingest(d);
});
let bTail = "";
let waiter: (() => void) | null = null;
const emB = new Emulator({ cols: 120, rows: 40 });
const b = owned(["/bin/bash", "--norc", "--noprofile", "-i"], (d) => {
  emB.ingest(d);
  bTail = (bTail + Buffer.from(d).toString("latin1")).slice(-200);
  if (waiter && /[\r\n]hi\r\n(\x1b\[\?2004h)?P> $/.test(bTail)) {
    const w = waiter;
    waiter = null;
    w();
  }
});
await Bun.sleep(300);
const lat: number[] = [];
const t0 = performance.now();
while (performance.now() - t0 < FLOOD_MS) {
  bTail = "";
  const s = performance.now();
  await new Promise<void>((resolve) => {
    waiter = resolve;
    b.write("echo hi\r");
  });
  lat.push(performance.now() - s);
}
const mb = chunks.reduce((x, y) => x + y, 0) / 1e6;
console.log(
  `flood: B echo hi n=${lat.length} p50 ${f(lat, 0.5)} p95 ${f(lat, 0.95)} max ${f(lat, 1)} ms; ` +
    `A read ${(mb / (FLOOD_MS / 1000)).toFixed(1)} MB/s in chunks p50 ${f(chunks, 0.5)} max ${f(chunks, 1)} B`,
);
await Promise.all([a.close("KILL"), b.close("KILL")]);
console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
process.exit(0);
