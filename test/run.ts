/**
 * The test command (`bun run test`): runs `bun test` in an isolated environment and prints the
 * plain closing line CI reads: "N passed, N failed". Afterwards it checks that no process started
 * by the suite is left behind (every such process carries PTYHUB_TEST_RUN in its environment).
 *
 * Usage: bun run test [--load] [bun test args…]   (e.g. `bun run test test/unit`)
 *
 * `--load` runs the tests beside CPU hogs (see test/load.ts): the busy machine of a laptop during
 * a build, where a wait that leans on timing rather than on a signal shows itself.
 */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLoad } from "./load.ts";
import { TEST_TIMEOUT_MS } from "./helpers/test-timeout.ts";

const runId = `run-${process.pid}-${Date.now()}`;
const root = mkdtempSync(join(tmpdir(), "ptyhub-test-"));
const dirs = {
  HOME: "home",
  XDG_RUNTIME_DIR: "runtime",
  XDG_CONFIG_HOME: "config",
  XDG_STATE_HOME: "state",
  XDG_CACHE_HOME: "cache",
  TMPDIR: "tmp",
};
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  PTYHUB_TEST_RUN: runId,
  PTYHUB_TEST_ROOT: root,
};
for (const [name, sub] of Object.entries(dirs)) {
  const path = join(root, sub);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  env[name] = path;
}
// The daemon's socket is per uid by default (/tmp/ptyhub-<uid>): keep this run's daemon its own.
env.PTYHUB_SOCKET = join(root, "runtime", "ptyhub", "daemon.sock");
delete env.SSH_AUTH_SOCK;
delete env.PTYHUB_LOG_LEVEL;

const LOAD_FLAG = "--load";
const load = process.argv.includes(LOAD_FLAG) ? startLoad() : null;
const args = process.argv.slice(2).filter((a) => a !== LOAD_FLAG);
const targets = args.length > 0 ? args : ["test/"];
const startedAt = performance.now();
// --timeout, not only the preload's setDefaultTimeout, which Bun applies to the first file alone
// (later files timed out at Bun's default 5 s: a failure in CI under load).
const proc = Bun.spawn(["bun", "test", "--timeout", String(TEST_TIMEOUT_MS), ...targets], {
  env,
  stdout: "pipe",
  stderr: "pipe",
  stdin: "ignore",
});

let summary = "";
async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const dec = new TextDecoder();
  for await (const chunk of stream) {
    const text = dec.decode(chunk, { stream: true });
    summary = (summary + text).slice(-4000);
    out.write(text);
  }
}
await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
const elapsedS = ((performance.now() - startedAt) / 1000).toFixed(1);
load?.stop();

const passed = Number(/^\s*(\d+) pass\s*$/m.exec(summary)?.[1] ?? 0);
const failed = Number(/^\s*(\d+) fail\s*$/m.exec(summary)?.[1] ?? 0);

/** Processes whose environment carries this run's id: whatever the suite failed to end. */
function leftovers(): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1");
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (environ.includes(`PTYHUB_TEST_RUN=${runId}`)) out.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

// A test that opened a persistent session through an MCP server leaves the run's daemon running:
// stop it (its sessions end with it), so only real leaks are reported below.
Bun.spawnSync([process.execPath, "src/cli.ts", "daemon", "--stop"], { env, stdout: "ignore", stderr: "ignore" });

let leaked: number[] = [];
if (process.platform === "linux") {
  // Give processes that are already dying a moment.
  for (let i = 0; i < 20 && (leaked = leftovers()).length > 0; i++) await Bun.sleep(100);
  if (leaked.length > 0) {
    for (const pid of leaked) {
      let cmd = "?";
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").trim();
      } catch {}
      process.stderr.write(`leftover process ${pid}: ${cmd}\n`);
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
}
rmSync(root, { recursive: true, force: true });

const leakFailures = leaked.length > 0 ? 1 : 0;
const loadNote = load ? ` under load (${load.hogs} CPU hogs)` : "";
process.stderr.write(`tests took ${elapsedS} s${loadNote}\n`);
process.stdout.write(`\n${passed} passed, ${failed + leakFailures} failed\n`);
if (passed === 0) process.stderr.write("no test ran\n");
process.exit(code !== 0 || failed > 0 || leakFailures > 0 || passed === 0 ? 1 : 0);
