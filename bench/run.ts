/**
 * `bun run bench`: ptyhub side by side with a peer MCP server (ptyai) and with a bare PTY.
 *
 *   bun run bench                 full run (a few minutes); writes bench/RESULTS.md
 *   bun run bench --smoke         one quick pass of every metric (CI); writes bench/.work/RESULTS-smoke.md
 *   bun run bench --only latency,tokens   some metrics; writes bench/.work/RESULTS-partial.md
 *   bun run bench --no-peer       skip installing and measuring ptyai
 *   bun run bench --strict        also exit non-zero when a target is missed
 *   bun run bench --wait-quiet    before each metric, wait (up to 3 min) for the 1-minute load average to drop below half the cores
 *
 * Exit status: 1 when the harness itself breaks (a metric cannot be measured, a ptyhub fact check
 * fails, ptyhub returns a wrong result); missed speed targets are reported, not fatal, unless
 * --strict. ptyai that cannot be installed is reported as unavailable, not fatal.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { machineInfo, removeBenchRoot, RUN_ID } from "./lib/env.ts";
import { killAll, processesWithEnv, RUN_VAR } from "./lib/procs.ts";
import { ensureBinary, ensurePtyai, ensureTokenizer, BENCH, REPO, WORK } from "./lib/peers.ts";
import { renderChecks, renderMachine, renderMetric } from "./lib/report.ts";
import type { ServerSpec } from "./lib/mcp.ts";
import type { Ctx, MetricResult } from "./lib/types.ts";
import { latency } from "./metrics/latency.ts";
import { throughput } from "./metrics/throughput.ts";
import { coldStart } from "./metrics/coldstart.ts";
import { memoryAndFlood } from "./metrics/memory.ts";
import { tokens } from "./metrics/tokens.ts";
import { guard } from "./metrics/guard.ts";
import { keystroke } from "./metrics/keystroke.ts";

import { serial } from "./metrics/serial.ts";
import { httpVsStdio } from "./metrics/http.ts";
import { inputWait } from "./metrics/input-wait.ts";
import { taskWake } from "./metrics/task-wake.ts";
import { scaleSessions } from "./metrics/scale.ts";
import { scaleContainers } from "./metrics/scale-containers.ts";

const METRICS = [
  "latency",
  "throughput",
  "coldstart",
  "memory",
  "tokens",
  "guard",
  "http",
  "serial",
  "keystroke",
  "input",
  "taskwake",
  "scale",
  "containers",
] as const;
type MetricId = (typeof METRICS)[number];

interface Args {
  smoke: boolean;
  noPeer: boolean;
  strict: boolean;
  waitQuiet: boolean;
  only: MetricId[] | null;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { smoke: false, noPeer: false, strict: false, waitQuiet: false, only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--smoke") args.smoke = true;
    else if (a === "--no-peer") args.noPeer = true;
    else if (a === "--strict") args.strict = true;
    else if (a === "--wait-quiet") args.waitQuiet = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : (argv[++i] ?? "");
      const ids = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = ids.filter((id) => !(METRICS as readonly string[]).includes(id));
      if (bad.length)
        usage(`unknown metric(s): ${bad.join(", ")}; known: ${METRICS.join(", ")} (memory includes the flood)`);
      args.only = ids as MetricId[];
    } else if (a === "--help" || a === "-h") usage();
    else usage(`unknown argument ${a}`);
  }
  return args;
}

function usage(error?: string): never {
  const text = `usage: bun run bench [--smoke] [--only ${METRICS.join(",")}] [--no-peer] [--strict] [--wait-quiet]\n`;
  if (error) {
    process.stderr.write(`bench: ${error}\n${text}`);
    process.exit(2);
  }
  process.stdout.write(text);
  process.exit(0);
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** The 1-minute load average (other engineers' builds and tests share this machine). */
function load1(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return 0;
  }
}

/** How long --wait-quiet waits at most before a metric. */
const QUIET_WAIT_MS = 180_000;

async function waitQuiet(): Promise<void> {
  const limit = (navigator.hardwareConcurrency || 2) / 2;
  const deadline = Date.now() + QUIET_WAIT_MS;
  if (load1() < limit) return;
  log(`  waiting for load average < ${limit} (now ${load1()}) …`);
  while (load1() >= limit && Date.now() < deadline) await Bun.sleep(5000);
}

/** Ends every process of this run that is still alive (servers' sessions, daemons, bare shells). */
function sweep(): string[] {
  const left = processesWithEnv(RUN_VAR, RUN_ID);
  killAll(left);
  return left.map((p) => `${p.pid} ${p.cmd.slice(0, 80)}`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const mode = args.smoke ? "smoke (one quick pass)" : args.only ? `partial (${args.only.join(", ")})` : "full";
  log(`ptyhub bench: ${mode}`);
  const machine = machineInfo();
  const setupNotes: string[] = [];

  // A daemon of a crashed run exits by itself after a minute without clients.
  const ptyhubEnv = { PTYHUB_DAEMON_IDLE_MS: "60000" };
  const ptyhub: ServerSpec = {
    label: "ptyhub",
    command: "bun",
    args: [join(REPO, "src", "cli.ts")],
    env: ptyhubEnv,
    stopArgs: ["daemon", "--stop"],
  };
  const ptyhubInproc: ServerSpec = {
    label: "ptyhub-inproc",
    command: "bun",
    args: [join(REPO, "src", "cli.ts")],
    env: { ...ptyhubEnv, PTYHUB_PERSISTENT: "0" },
  };

  const want = (id: MetricId) => !args.only || args.only.includes(id);
  let binary: ServerSpec | null = null;
  let binaryHow = "";
  if (want("coldstart") || want("memory") || want("containers")) {
    const b = ensureBinary(log);
    if (b.ok) {
      binary = { label: "ptyhub-binary", command: b.value, args: [], env: ptyhubEnv };
      binaryHow = b.value.startsWith(join(WORK, "dist"))
        ? "release build (build.ts)"
        : "bun build --compile --minify --bytecode --splitting (no build.ts build)";
      setupNotes.push(`ptyhub binary: ${relative(REPO, b.value)} (${b.note}).`);
    } else setupNotes.push(`ptyhub binary unavailable: ${b.reason}`);
  }

  let ptyai: ServerSpec | null = null;
  if (args.noPeer) setupNotes.push("ptyai skipped (--no-peer).");
  else {
    const p = ensurePtyai(log);
    if (p.ok) {
      ptyai = { label: "ptyai", command: p.value.node, args: [p.value.bin], env: { PTYAI_DEFAULT_SHELL: "/bin/bash" } };
      setupNotes.push(
        `ptyai ${p.value.version} (node-pty + @xterm/headless) under node ${machine.node ?? "?"}, from bench/.peers/ptyai (${p.note}).`,
      );
    } else {
      setupNotes.push(`**ptyai unavailable**: ${p.reason}. ptyhub and the bare PTY are still measured.`);
      log(`NOTE: ptyai unavailable: ${p.reason}`);
    }
  }

  let tokenizer: Ctx["tokenizer"] = null;
  if (want("tokens")) {
    const t = await ensureTokenizer(log);
    if (t.ok) {
      tokenizer = t.value;
      setupNotes.push(`Tokens counted with gpt-tokenizer's o200k_base (bench/.peers/tokenizer, ${t.note}).`);
    } else
      setupNotes.push(`Tokenizer unavailable (${t.reason}); tokens estimated as chars/4 + 1 per non-ASCII character.`);
  }

  const ctx: Ctx = { smoke: args.smoke, ptyhub, ptyhubInproc, binary, binaryHow, ptyai, tokenizer, log };
  const results: MetricResult[] = [];
  let maxLoad = 0;
  const runners: Array<[MetricId, () => Promise<MetricResult[]>]> = [
    ["latency", async () => [await latency(ctx)]],
    ["throughput", async () => [await throughput(ctx)]],
    ["coldstart", async () => [await coldStart(ctx)]],
    ["memory", async () => memoryAndFlood(ctx)],
    ["tokens", async () => [await tokens(ctx)]],
    ["guard", async () => [await guard(ctx)]],
    ["http", async () => [await httpVsStdio(ctx)]],
    ["serial", async () => [await serial(ctx)]],
    ["input", async () => [await inputWait(ctx)]],
    ["keystroke", async () => [await keystroke(ctx)]],
    ["taskwake", async () => [await taskWake(ctx)]],
    ["scale", async () => [await scaleSessions(ctx)]],
    ["containers", async () => [await scaleContainers(ctx)]],
  ];
  for (const [id, run] of runners) {
    if (!want(id)) continue;
    if (args.waitQuiet) await waitQuiet();
    const t0 = performance.now();
    const loadBefore = load1();
    log(`— ${id} …`);
    let produced: MetricResult[];
    try {
      produced = await run();
    } catch (err) {
      produced = [
        {
          id,
          title: id,
          tables: [],
          checks: [],
          notes: [],
          errors: [`could not be measured: ${(err as Error).stack ?? String(err)}`],
        },
      ];
    }
    const secs = (performance.now() - t0) / 1000;
    // Only the load before a metric is other work: the flood raises it by itself.
    maxLoad = Math.max(maxLoad, loadBefore);
    for (const r of produced)
      r.notes.push(
        `Measured in ${secs.toFixed(0)} s; 1-minute load average ${loadBefore.toFixed(2)} before, ${load1().toFixed(2)} after (${machine.nproc} cores).`,
      );
    results.push(...produced);
    log(`  ${id} done in ${secs.toFixed(1)} s`);
  }

  const leftovers = sweep();
  removeBenchRoot();

  const checks = results.flatMap((r) => r.checks);
  const errors = results.flatMap((r) => r.errors.map((e) => `${r.id}: ${e}`));
  const seconds = (performance.now() - started) / 1000;
  const doc = [
    `# ptyhub benchmark results`,
    "",
    `Produced by \`bun run bench${args.smoke ? " --smoke" : ""}${args.only ? ` --only ${args.only.join(",")}` : ""}\` (${mode}) in ${seconds.toFixed(0)} s; do not edit by hand. How to read it: bench/README.md.`,
    "",
    renderMachine(machine),
    "",
    maxLoad >= machine.nproc / 2
      ? `> **Noisy run:** the 1-minute load average was up to ${maxLoad.toFixed(2)} on ${machine.nproc} cores when a metric started (other work shares this machine). Compare subjects within a table (they were interleaved), and treat absolute numbers with care; each metric notes its load.\n`
      : `The 1-minute load average was below ${machine.nproc / 2} when each metric started (the flood raises it by itself).\n`,
    ...setupNotes.map((n) => `- ${n}`),
    "",
    "## Targets",
    "",
    renderChecks(checks),
    "",
    ...results.map((r) => renderMetric(r) + "\n"),
    leftovers.length ? `Processes still running at the end, ended by the harness: ${leftovers.join("; ")}\n` : "",
    errors.length ? `## Harness errors\n\n${errors.map((e) => `- ${e.split("\n")[0]}`).join("\n")}\n` : "",
  ].join("\n");

  process.stdout.write(doc);
  mkdirSync(WORK, { recursive: true });
  const out = args.smoke
    ? join(WORK, "RESULTS-smoke.md")
    : args.only
      ? join(WORK, "RESULTS-partial.md")
      : join(BENCH, "RESULTS.md");
  writeFileSync(out, doc);
  log(`\nwrote ${relative(REPO, out)} (${seconds.toFixed(0)} s)`);
  for (const e of errors) log(`HARNESS ERROR: ${e}`);
  const missed = checks.filter((c) => c.met === false);
  if (missed.length) log(`targets missed: ${missed.map((c) => c.goal).join("; ")}`);
  if (errors.length) return 1;
  if (args.strict && missed.length) return 1;
  return 0;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    sweep();
    removeBenchRoot();
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench: ${(err as Error).stack ?? String(err)}`);
    sweep();
    removeBenchRoot();
    process.exit(1);
  },
);
