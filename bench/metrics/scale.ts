/**
 * Cost as work grows (issue #34, part 6), sessions per daemon: one ptyhub server (sessions in its
 * daemon, as shipped) opens sessions up to 1 → 10 → 100 → 500 (smoke: 1 → 10). At each step: the
 * time of the opens that reached it, `echo hi` in the first session with all of them idle and
 * again while 10 more sessions are busy, the RSS of the server and daemon, and their CPU while
 * everything is idle and while the 10 are busy. Every row is also given as a ratio to the same
 * row at one session, measured in the same run.
 *
 * The 10 busy sessions are opened once, before the steps (the first of them starts the daemon),
 * and sit idle except during each step's busy phase: they print a short line every 10 ms (about
 * 100 lines/s each) until ctrl+c.
 */
import { readFileSync } from "node:fs";
import { McpServer, type ServerSpec } from "../lib/mcp.ts";
import { PtyhubShell } from "../lib/shells.ts";
import { fmt, median, p95 } from "../lib/stats.ts";
import { cpuPercentOver, steadyRss } from "../lib/usage.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

const FULL_STEPS = [1, 10, 100, 500] as const;
const SMOKE_STEPS = [1, 10] as const;
const BUSY_SESSIONS = 10;
/**
 * What a busy session runs: steady output, not a flood (the flood has its own metric). A loop of
 * its own `sh`, not of the session's shell: ctrl+c ends that process group whole.
 */
const BUSY_COMMAND = "sh -c 'while :; do echo busy $$; sleep 0.01; done'";
/** term_exec's wait for the busy command: it returns `running` after this. */
const BUSY_START_MS = 200;
/** Sessions opened beyond the largest step (the busy ones), plus slack, under ptyhub's session limit. */
const SESSION_LIMIT_SLACK = 20;
/** `echo hi` samples per step and phase. */
const FULL_SAMPLES = 30;
const SMOKE_SAMPLES = 8;
/** CPU is read over this window (/proc counts 10 ms ticks). */
const CPU_WINDOW_MS = 3000;
const SMOKE_CPU_WINDOW_MS = 1000;
/** Let the daemon settle after opening sessions before reading its RSS. */
const SETTLE_MS = 1000;
/** How long a busy session's ctrl+c may take to bring its prompt back. */
const STOP_WAIT_MS = 30_000;

interface Step {
  sessions: number;
  opens: number[];
  idle: number[];
  busy: number[];
  rss: number | null;
  idleCpu: number | null;
  busyCpu: number | null;
  wrong: string[];
  /** The 1-minute load average when the step's measurements began (steps run one after another). */
  load: string;
}

const BASE = 1;
const label = (what: string, n: number) => `${what}, ${n} session${n === 1 ? "" : "s"}`;

async function echoSamples(shell: PtyhubShell, count: number, wrong: string[]): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = await shell.exec("echo hi", "hi");
    ms.push(t.ms);
    if (!t.ok) wrong.push(t.detail);
  }
  return ms;
}

async function startBusy(server: McpServer, names: string[]): Promise<void> {
  for (const session of names) {
    const r = await server.must("term_exec", { session, command: BUSY_COMMAND, timeout_ms: BUSY_START_MS });
    const status = (r.result.structuredContent as Record<string, unknown> | undefined)?.status;
    if (status !== "running") throw new Error(`busy session ${session} did not keep running: ${r.text.slice(0, 200)}`);
  }
}

async function stopBusy(server: McpServer, names: string[]): Promise<void> {
  for (const session of names)
    await server.must("term_send", { session, keys: ["ctrl+c"], wait_ms: STOP_WAIT_MS }, STOP_WAIT_MS + 30_000);
}

async function runSteps(spec: ServerSpec, steps: readonly number[], samples: number, cpuMs: number): Promise<Step[]> {
  const limit = String(Math.max(...steps) + BUSY_SESSIONS + SESSION_LIMIT_SLACK);
  const { server } = await McpServer.start({ ...spec, env: { ...spec.env, PTYHUB_MAX_SESSIONS: limit } });
  try {
    const out: Step[] = [];
    const opened: string[] = [];
    const open = async (name: string) => {
      const r = await server.must("term_open", { name });
      opened.push(name);
      return r.ms;
    };
    // The busy sessions first (the first open also starts the daemon; these opens are not part
    // of any step), then the measured one.
    const busy = Array.from({ length: BUSY_SESSIONS }, (_, i) => `busy${i}`);
    for (const name of busy) await open(name);
    const firstOpen = await open("s0");
    const shell = new PtyhubShell(server, "s0");
    let idleCount = 1;
    for (const n of steps) {
      const step: Step = {
        sessions: n,
        opens: [],
        idle: [],
        busy: [],
        rss: null,
        idleCpu: null,
        busyCpu: null,
        wrong: [],
        load: "",
      };
      if (n === BASE) step.opens.push(firstOpen);
      while (idleCount < n) step.opens.push(await open(`s${idleCount++}`));
      await Bun.sleep(SETTLE_MS);
      step.load = readFileSync("/proc/loadavg", "latin1").split(" ")[0] ?? "?";
      step.rss = await steadyRss(server);
      step.idleCpu = await cpuPercentOver(server, cpuMs);
      await shell.exec("echo hi", "hi"); // untimed: the first call after a pause wakes what slept
      step.idle = await echoSamples(shell, samples, step.wrong);
      await startBusy(server, busy);
      try {
        step.busyCpu = await cpuPercentOver(server, cpuMs);
        step.busy = await echoSamples(shell, samples, step.wrong);
      } finally {
        await stopBusy(server, busy);
      }
      out.push(step);
    }
    return out;
  } finally {
    await server.close();
  }
}

function latencyRow(subject: string, samples: number[], baseline: string, note = ""): Row {
  return { subject, unit: "ms", samples, baseline, note };
}

function valueRow(
  subject: string,
  value: number | null,
  unit: Row["unit"],
  baseline: string | undefined,
  note = "",
): Row {
  return { subject, unit, samples: [], value, baseline, note };
}

export async function scaleSessions(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("scale", "Cost as work grows: sessions per daemon");
  const steps = ctx.smoke ? SMOKE_STEPS : FULL_STEPS;
  const samples = ctx.smoke ? SMOKE_SAMPLES : FULL_SAMPLES;
  const cpuMs = ctx.smoke ? SMOKE_CPU_WINDOW_MS : CPU_WINDOW_MS;
  ctx.log(`  sessions ${steps.join(" → ")} (+ ${BUSY_SESSIONS} busy), ${samples} samples per phase`);
  const measured = await runSteps(ctx.ptyhub, steps, samples, cpuMs);
  const base = measured[0]!;
  const openBase = label("open", BASE);
  const idleBase = label("echo hi idle", BASE);
  res.tables.push({
    title: "Open time and `echo hi` as sessions grow (ratio to the same row at 1 session)",
    kind: "latency",
    ratioHead: "× 1 session",
    rows: measured.flatMap((s, i) => {
      const from = i === 0 ? 1 : measured[i - 1]!.sessions + 1;
      return [
        latencyRow(
          label("open", s.sessions),
          s.opens,
          openBase,
          i === 0 ? "s0, the daemon already running" : `opens ${from}–${s.sessions}`,
        ),
        latencyRow(
          label("echo hi idle", s.sessions),
          s.idle,
          idleBase,
          `term_exec in session s0, all others idle; load ${s.load}`,
        ),
        latencyRow(
          label(`echo hi, ${BUSY_SESSIONS} busy`, s.sessions),
          s.busy,
          idleBase,
          `the same while ${BUSY_SESSIONS} other sessions print 100 lines/s each`,
        ),
      ];
    }),
  });
  const perSession = (s: Step) =>
    s.sessions > BASE && s.rss !== null && base.rss !== null ? (s.rss - base.rss) / (s.sessions - BASE) : null;
  res.tables.push({
    title: "Memory and daemon CPU as sessions grow (server + daemon; the sessions' shells not counted)",
    kind: "value",
    ratioHead: "× 1 session",
    rows: measured.flatMap((s) => [
      valueRow(
        label("RSS", s.sessions),
        s.rss,
        "MB",
        label("RSS", BASE),
        `with the ${BUSY_SESSIONS} busy sessions open, idle`,
      ),
      valueRow(
        label("RSS per session", s.sessions),
        perSession(s),
        "MB",
        undefined,
        s.sessions > BASE ? `(RSS − RSS at ${BASE}) / ${s.sessions - BASE}` : "the baseline",
      ),
      valueRow(label("CPU idle", s.sessions), s.idleCpu, "%", undefined, `of one core over ${cpuMs / 1000} s`),
      valueRow(
        label(`CPU, ${BUSY_SESSIONS} busy`, s.sessions),
        s.busyCpu,
        "%",
        undefined,
        `of one core over ${cpuMs / 1000} s while ${BUSY_SESSIONS} sessions print`,
      ),
    ]),
  });
  for (const s of measured) {
    if (s.wrong.length > 0)
      res.errors.push(`${s.wrong.length} wrong \`echo hi\` results at ${s.sessions} sessions: ${s.wrong[0]}`);
  }
  const last = measured[measured.length - 1]!;
  res.notes.push(
    "The steps run one after another, not interleaved: a change of the machine's load between them " +
      "(the load at each step is in the idle row's note) moves the ratios too.",
    `At ${last.sessions} sessions: \`echo hi\` idle median ${fmt(median(last.idle), "ms")} ` +
      `(p95 ${fmt(p95(last.idle), "ms")}) against ${fmt(median(base.idle), "ms")} at 1; ` +
      `with ${BUSY_SESSIONS} busy ${fmt(median(last.busy), "ms")} (p95 ${fmt(p95(last.busy), "ms")}).`,
  );
  return res;
}
