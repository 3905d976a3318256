/**
 * Serial lines for tests, with real parts: socat pty pairs (one end for ptyhub, the other for a
 * fake console or a real shell). Every helper waits on a barrier (socat's "starting data
 * transfer loop", the fake device's "ready"), and every process it starts is ended by stop().
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const STARTUP_TIMEOUT_MS = 10_000;

/** Reads a child's stream until `marker` appears (or the timeout). */
async function waitForText(stream: ReadableStream<Uint8Array>, marker: string, what: string): Promise<void> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let seen = "";
  const timer = setTimeout(() => void reader.cancel(), STARTUP_TIMEOUT_MS);
  try {
    while (!seen.includes(marker)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${what} ended before '${marker}': ${seen.slice(-500)}`);
      seen += dec.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

export function tempDir(): string {
  return mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "serial-"));
}

export interface Line {
  /** The end ptyhub opens. */
  path: string;
  proc: Subprocess;
  stop(): Promise<void>;
}

async function startSocat(args: string[], what: string): Promise<Subprocess<"ignore", "ignore", "pipe">> {
  const proc = Bun.spawn(["socat", "-d", "-d", ...args], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  await waitForText(proc.stderr, "starting data transfer loop", what);
  return proc;
}

async function stopProc(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  await proc.exited;
}

/** A socat pty pair: `path` for ptyhub, `far` for the device. `path` may be given to reuse a link name. */
export async function ptyPair(dir: string, path = join(dir, "ttyPH")): Promise<Line & { far: string }> {
  const far = `${path}-far`;
  const proc = await startSocat([`pty,raw,echo=0,link=${path}`, `pty,raw,echo=0,link=${far}`], "socat pty pair");
  return { path, far, proc, stop: () => stopProc(proc) };
}

/** A line whose far end is a real interactive sh on its own controlling tty (a board's console). */
export async function shellLine(dir: string, shell = "sh"): Promise<Line> {
  const path = join(dir, "ttySH");
  const proc = await startSocat(
    [`pty,raw,echo=0,link=${path}`, `EXEC:${shell} -i,pty,setsid,ctty,stderr`],
    "socat shell line",
  );
  return { path, proc, stop: () => stopProc(proc) };
}

export interface FakeConsole extends Line {
  device: Subprocess;
}

/** A pty pair with the fake console (fake_device.py) on its far end. */
export async function fakeConsole(dir: string, opts: { baud?: number } = {}): Promise<FakeConsole> {
  const pair = await ptyPair(dir);
  const args = ["python3", join(import.meta.dir, "fake_device.py"), pair.far];
  if (opts.baud) args.push("--baud", String(opts.baud));
  const device = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  await waitForText(device.stdout, "ready", "fake device");
  return {
    path: pair.path,
    proc: pair.proc,
    device,
    stop: async () => {
      await stopProc(device);
      await pair.stop();
    },
  };
}
