/**
 * Diagnostic: why `echo hi` in one session stalls while another session floods.
 *
 *   bun bench/diag/flood-reader.ts terminal parse     # Bun.Terminal, ptyhub's Emulator parses in the data callback (as src does)
 *   bun bench/diag/flood-reader.ts terminal noparse   # Bun.Terminal, trivial data callback
 *   bun bench/diag/flood-reader.ts ownfd parse        # master fd from openpty (bun:ffi), read + parsed in ≤ 4 ms slices
 *
 * Session A runs `yes`; session B (a Bun.Terminal bash) answers `echo hi` back to back for 4 s.
 * Prints B's latency and the lag of a 10 ms timer. Bun.Terminal drains a PTY that the producer
 * keeps refilling without yielding and has no pause() (oven-sh/bun#41410), so timers and other
 * fds wait; reading a master fd we own, in bounded slices, keeps the event loop responsive and
 * gives real backpressure (stop reading and the producer blocks). Linux (glibc) only.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { readSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Emulator } from "../../src/terminal/emulator.ts";
import { quantile } from "../lib/stats.ts";

const reader = process.argv[2] === "ownfd" ? "ownfd" : "terminal";
const parse = process.argv[3] !== "noparse";
const SECONDS = 4;
/** Longest a read-and-parse slice may hold the event loop in the own-fd reader. */
const SLICE_MS = 4;

const em = new Emulator({ cols: 120, rows: 40 });
let bytes = 0;
const consume = (data: Uint8Array) => {
  bytes += data.length;
  if (parse) em.ingest(data);
};

let stopA: () => void;
if (reader === "terminal") {
  const a = Bun.spawn(["yes"], { terminal: { cols: 120, rows: 40, data: (_t, d) => consume(d) } });
  stopA = () => a.kill("SIGKILL");
} else {
  const libc = dlopen("libc.so.6", {
    openpty: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  });
  const fds = new Int32Array(2);
  if (libc.symbols.openpty(ptr(fds), ptr(fds, 4), null, null, null) !== 0) throw new Error("openpty failed");
  const [master, slave] = [fds[0]!, fds[1]!];
  const F_GETFL = 3,
    F_SETFL = 4,
    O_NONBLOCK = 0o4000;
  libc.symbols.fcntl(master, F_SETFL, libc.symbols.fcntl(master, F_GETFL, 0) | O_NONBLOCK);
  const a = Bun.spawn(["yes"], { stdio: [slave, slave, slave] });
  const buf = Buffer.allocUnsafe(65536);
  let stopped = false;
  const pump = () => {
    const t0 = performance.now();
    while (!stopped) {
      let n: number;
      try {
        n = readSync(master, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") return void setTimeout(pump, 1);
        throw err;
      }
      consume(buf.subarray(0, n));
      if (performance.now() - t0 >= SLICE_MS) return void setImmediate(pump);
    }
  };
  pump();
  stopA = () => {
    stopped = true;
    a.kill("SIGKILL");
  };
}

const inputrc = join(tmpdir(), `flood-reader-${process.pid}.inputrc`);
writeFileSync(inputrc, "set enable-bracketed-paste off\n");
let tail = "";
let waiter: (() => void) | null = null;
const b = Bun.spawn(["/bin/bash", "--norc", "--noprofile", "-i"], {
  env: {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    PS1: "P> ",
    HOME: tmpdir(),
    INPUTRC: inputrc,
  },
  terminal: {
    cols: 120,
    rows: 40,
    data: (_t, d) => {
      tail = (tail + Buffer.from(d).toString("latin1")).slice(-200);
      if (waiter && tail.endsWith("hi\r\nP> ")) {
        const w = waiter;
        waiter = null;
        w();
      }
    },
  },
});
await Bun.sleep(300);

const lags: number[] = [];
let last = performance.now();
const timer = setInterval(() => {
  const now = performance.now();
  lags.push(now - last - 10);
  last = now;
}, 10);
const latencies: number[] = [];
const t0 = performance.now();
while (performance.now() - t0 < SECONDS * 1000) {
  tail = "";
  const s = performance.now();
  await new Promise<void>((resolve) => {
    waiter = resolve;
    b.terminal!.write("echo hi\r");
  });
  latencies.push(performance.now() - s);
}
clearInterval(timer);
stopA();
b.kill("SIGKILL");
unlinkSync(inputrc);
const f = (xs: number[], q: number) => (quantile(xs, q) ?? 0).toFixed(1);
console.log(
  `${reader}, ${parse ? "Emulator parses" : "no parse"}: B echo hi n=${latencies.length} p50 ${f(latencies, 0.5)} p95 ${f(latencies, 0.95)} max ${f(latencies, 1)} ms; ` +
    `10 ms timer lag p95 ${f(lags, 0.95)} max ${f(lags, 1)} ms; A read ${(bytes / SECONDS / 1e6).toFixed(1)} MB/s`,
);
process.exit(0);
