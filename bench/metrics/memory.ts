/**
 * Metric 4, memory (RSS of the server process: idle, with 20 idle sessions, and the peak while
 * `yes` floods one session) and metric 5, responsiveness under that flood (`echo hi` latency in
 * a second session while the first floods). The flood runs once per round and serves both.
 * RSS is /proc/<pid>/status VmRSS of the server process (bun, or node for ptyai); the sessions'
 * shells are separate processes and not included.
 */
import { join } from "node:path";
import { BareShell } from "../lib/bare.ts";
import { isolatedEnv } from "../lib/env.ts";
import { killAll, processesWithEnv, SERVER_VAR } from "../lib/procs.ts";
import { McpServer, structured, type ServerSpec } from "../lib/mcp.ts";
import { PtyaiShell, PtyhubShell } from "../lib/shells.ts";
import { fmt, max, median, p95 } from "../lib/stats.ts";
import { emptyResult, peer, type Ctx, type MetricResult, type Row } from "../lib/types.ts";
import { twoFloods } from "./memory-two-floods.ts";
import { cpuPercentOver, steadyRss } from "../lib/usage.ts";

export const TARGET_IDLE_MB = 60;
export const TARGET_PER_SESSION_MB = 1.5;
export const TARGET_PEAK_MB = 200;
/** Issue #11: another session's `echo hi` while one floods, on the owned-PTY reader. */
export const TARGET_FLOOD_P95_MS = 25;
export const TARGET_FLOOD_MEDIAN_MS = 8;
/** Issue #11: idle sessions cost ≈ no CPU (no polling readers); 1 % of a core is the bound. */
export const TARGET_IDLE_CPU_PCT = 1;
/** How long CPU use is measured with the idle sessions open: /proc counts in 10 ms ticks. */
const IDLE_CPU_WINDOW_MS = 3000;

const SESSIONS = 20;
/** Let a server finish start-up work and settle before reading its RSS. */
let SETTLE_MS = 1500;
const SAMPLE_EVERY_MS = 50;

/** Samples a server's RSS every SAMPLE_EVERY_MS until stopped; keeps the peak. */
function rssSampler(server: McpServer): { stop: () => { peak: number | null; samples: number[] } } {
  const samples: number[] = [];
  const tick = () => {
    const r = server.rssAll().total;
    if (r !== null) samples.push(r);
  };
  tick();
  const timer = setInterval(tick, SAMPLE_EVERY_MS);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return { peak: max(samples), samples };
    },
  };
}

interface IdleResult {
  idle: number | null;
  one: number | null;
  withSessions: number | null;
  /** The share of helper processes (ptyhub's daemon) in withSessions. */
  helpers: number;
  /** CPU of the server and its helpers while the sessions sit idle, in % of one core. */
  idleCpuPct: number | null;
}

async function idleRound(spec: ServerSpec, kind: "ptyhub" | "ptyai"): Promise<IdleResult> {
  const { server } = await McpServer.start(spec);
  try {
    await Bun.sleep(SETTLE_MS);
    const idle = await steadyRss(server);
    let one: number | null = null;
    for (let i = 0; i < SESSIONS; i++) {
      if (kind === "ptyhub") await server.must("term_open", { name: `idle${i}` });
      else await server.must("pty_create", { shell: "/bin/bash" });
      if (i === 0) {
        // One session first: for ptyhub this also starts its daemon, whose base cost is not per session.
        await Bun.sleep(SETTLE_MS);
        one = await steadyRss(server);
      }
    }
    await Bun.sleep(SETTLE_MS);
    const withSessions = await steadyRss(server);
    const idleCpuPct = await cpuPercentOver(server, IDLE_CPU_WINDOW_MS);
    return { idle, one, withSessions, helpers: server.rssAll().helpers, idleCpuPct };
  } finally {
    await server.close();
  }
}

interface FloodResult {
  latencies: number[];
  correct: number;
  peak: number | null;
  atEnd: number | null;
  after: number | null;
  note: string;
}

async function floodPtyhub(spec: ServerSpec, floodMs: number): Promise<FloodResult> {
  const { server } = await McpServer.start(spec);
  try {
    await server.must("term_open", { name: "A" });
    const b = await PtyhubShell.open(server, "B");
    await b.exec("echo hi", "hi");
    const sampler = rssSampler(server);
    const t0 = performance.now();
    // The flood: term_exec `yes` in A, which returns `running` when its timeout passes.
    const flood = server.call("term_exec", { session: "A", command: "yes", timeout_ms: floodMs }, floodMs + 120_000);
    const latencies: number[] = [];
    let correct = 0;
    while (performance.now() - t0 < floodMs) {
      const t = await b.exec("echo hi", "hi");
      latencies.push(t.ms);
      if (t.ok) correct++;
    }
    const a = await flood;
    const late = performance.now() - t0 - floodMs;
    const atEnd = server.rssAll().total;
    const s = structured(a);
    // Interrupt, and wait for A's prompt (term_send waits for the shell's end mark).
    const stop = await server.call("term_send", { session: "A", keys: ["ctrl+c"], wait_ms: 30_000 }, 90_000);
    const { peak } = sampler.stop();
    await Bun.sleep(1000);
    const after = await steadyRss(server);
    const shown = typeof s.output === "string" ? s.output.length : 0;
    return {
      latencies,
      correct,
      peak,
      atEnd,
      after,
      note: `A's term_exec returned ${String(s.status)} ${fmt(late, "ms")} after its timeout with ${shown} chars; ctrl+c → prompt in ${fmt(stop.ms, "ms")} (via ${String(structured(stop).via)})`,
    };
  } finally {
    await server.close();
  }
}

async function floodPtyai(spec: ServerSpec, floodMs: number): Promise<FloodResult> {
  const { server } = await McpServer.start(spec);
  try {
    const a = await PtyaiShell.open(server);
    const b = await PtyaiShell.open(server);
    const sampler = rssSampler(server);
    const t0 = performance.now();
    await a.type("yes\r");
    const latencies: number[] = [];
    let correct = 0;
    while (performance.now() - t0 < floodMs) {
      await b.clear();
      const t = await b.exec("echo hi", "hi", { settle_ms: 50 });
      latencies.push(t.ms);
      if (t.ok) correct++;
    }
    const atEnd = server.rssAll().total;
    await a.key("ctrl+c");
    // Until A's screen is quiet again: what was queued behind the flood has been parsed.
    const drain = await server.call(
      "pty_wait",
      { session_id: a.id, settle_ms: 300, timeout_ms: 120_000, include_screen: false },
      180_000,
    );
    const { peak } = sampler.stop();
    await Bun.sleep(1000);
    const after = await steadyRss(server);
    return {
      latencies,
      correct,
      peak,
      atEnd,
      after,
      note: `ctrl+c → quiet (300 ms settle) in ${fmt(drain.ms, "ms")}; each sample is clear + pty_write settle_ms 50`,
    };
  } finally {
    await server.close();
  }
}

async function floodBare(floodMs: number): Promise<FloodResult> {
  // A's flood is read by a separate process; this one only measures B.
  const iso = isolatedEnv("bare_flood");
  const drain = Bun.spawn(["bun", join(import.meta.dir, "..", "lib", "drain.ts")], {
    env: iso.env,
    stdout: "pipe",
    stderr: "ignore",
    stdin: "ignore",
  });
  const reader = drain.stdout.getReader();
  const dec = new TextDecoder();
  let out = "";
  while (!out.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the bare-PTY flood helper did not start");
    out += dec.decode(value, { stream: true });
  }
  const b = await BareShell.open();
  try {
    const t0 = performance.now();
    const latencies: number[] = [];
    while (performance.now() - t0 < floodMs) latencies.push(await b.run("echo hi", "hi"));
    const elapsed = performance.now() - t0;
    drain.kill("SIGTERM");
    out = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += dec.decode(value, { stream: true });
    }
    const mb = Number(out.trim().split("\n").pop()) / 1e6;
    return {
      latencies,
      correct: latencies.length,
      peak: null,
      atEnd: null,
      after: null,
      note: `A: \`yes\` in a PTY read by a separate process at ${fmt(mb / (elapsed / 1000), "MB/s")}`,
    };
  } finally {
    drain.kill("SIGKILL");
    await b.close();
    killAll(processesWithEnv(SERVER_VAR, iso.env[SERVER_VAR]!));
  }
}

export async function memoryAndFlood(ctx: Ctx): Promise<[MetricResult, MetricResult]> {
  const mem = emptyResult("memory", "4. Memory: server RSS idle, with 20 idle sessions, and under a `yes` flood");
  const resp = emptyResult(
    "flood",
    "5. Responsiveness under flood: `echo hi` in session B while `yes` floods session A",
  );
  const rounds = ctx.smoke ? 1 : 2;
  SETTLE_MS = ctx.smoke ? 500 : 1500;
  const floodMs = ctx.smoke ? 3000 : 10_000;

  type Subject = { label: string; kind: "ptyhub" | "ptyai"; spec: ServerSpec };
  // The shipped artifact is the compiled binary; its daemon is the same binary.
  const hubSpec: ServerSpec = ctx.binary ? { ...ctx.binary, stopArgs: ["daemon", "--stop"] } : ctx.ptyhub;
  const inprocSpec: ServerSpec = ctx.binary
    ? { ...ctx.binary, label: "ptyhub-binary-inproc", env: { ...ctx.binary.env, PTYHUB_PERSISTENT: "0" } }
    : ctx.ptyhubInproc;
  mem.notes.push(
    ctx.binary
      ? "ptyhub runs as the compiled binary here (what ships); its daemon is the same binary."
      : "The compiled binary is unavailable: ptyhub runs as `bun src/cli.ts` here.",
  );
  const subjects: Subject[] = [{ label: "ptyhub", kind: "ptyhub", spec: hubSpec }];
  const inproc: Subject = { label: "ptyhub in-process", kind: "ptyhub", spec: inprocSpec };
  if (ctx.ptyai) subjects.push({ label: "ptyai", kind: "ptyai", spec: ctx.ptyai });
  else {
    mem.notes.push("ptyai unavailable: only ptyhub was measured.");
    resp.notes.push("ptyai unavailable: only ptyhub and the bare PTY were measured.");
  }

  // Idle and 20 sessions, interleaved.
  const idle = new Map<string, IdleResult[]>();
  const idleSubjects = [...subjects, inproc];
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? idleSubjects : [...idleSubjects].reverse()) {
      const list = idle.get(s.label) ?? [];
      const r =
        s.label === "ptyai"
          ? await peer(mem, "idle round", () => idleRound(s.spec, s.kind))
          : await idleRound(s.spec, s.kind);
      if (r) list.push(r);
      idle.set(s.label, list);
    }
  }

  // Floods, interleaved; the bare PTY once per round.
  const floods = new Map<string, FloodResult[]>();
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? subjects : [...subjects].reverse()) {
      const f =
        s.kind === "ptyhub"
          ? await floodPtyhub(s.spec, floodMs)
          : await peer(resp, "flood round", () => floodPtyai(s.spec, floodMs));
      if (f) floods.set(s.label, [...(floods.get(s.label) ?? []), f]);
    }
    floods.set("bare", [...(floods.get("bare") ?? []), await floodBare(floodMs)]);
  }

  const memRows: Row[] = [];
  const nums = (xs: Array<number | null>) => xs.filter((x): x is number => x !== null);
  for (const s of idleSubjects) {
    const list = idle.get(s.label) ?? [];
    const idleMb = median(nums(list.map((x) => x.idle)));
    const oneMb = median(nums(list.map((x) => x.one)));
    const withMb = median(nums(list.map((x) => x.withSessions)));
    const helpersMb = median(list.map((x) => x.helpers));
    const per = oneMb !== null && withMb !== null ? (withMb - oneMb) / (SESSIONS - 1) : null;
    if (s === inproc) {
      memRows.push(
        {
          subject: `${s.label} idle (no session)`,
          unit: "MB",
          samples: [],
          value: idleMb,
          baseline: "ptyhub idle (no session)",
          note: "PTYHUB_PERSISTENT=0: sessions inside the MCP server",
        },
        {
          subject: `${s.label} with 1 session`,
          unit: "MB",
          samples: [],
          value: oneMb,
          baseline: "ptyhub with 1 session",
        },
        {
          subject: `${s.label} with ${SESSIONS} idle sessions`,
          unit: "MB",
          samples: [],
          value: withMb,
          baseline: `ptyhub with ${SESSIONS} idle sessions`,
        },
        {
          subject: `${s.label} per idle session`,
          unit: "MB",
          samples: [],
          value: per,
          baseline: "ptyhub per idle session",
          note: `(with ${SESSIONS} − with 1) / ${SESSIONS - 1}`,
        },
      );
      continue;
    }
    const fl = floods.get(s.label) ?? [];
    const peak = max(fl.map((f) => f.peak).filter((x): x is number => x !== null));
    const atEnd = max(fl.map((f) => f.atEnd).filter((x): x is number => x !== null));
    const after = max(fl.map((f) => f.after).filter((x): x is number => x !== null));
    memRows.push(
      {
        subject: `${s.label} idle (no session)`,
        unit: "MB",
        samples: [],
        value: idleMb,
        baseline: "ptyhub idle (no session)",
        note: `median of ${list.length} round(s)`,
      },
      {
        subject: `${s.label} with 1 session`,
        unit: "MB",
        samples: [],
        value: oneMb,
        baseline: "ptyhub with 1 session",
        note: s.kind === "ptyhub" ? "MCP server + session daemon (started by the first session)" : "",
      },
      {
        subject: `${s.label} with ${SESSIONS} idle sessions`,
        unit: "MB",
        samples: [],
        value: withMb,
        baseline: `ptyhub with ${SESSIONS} idle sessions`,
        note: s.kind === "ptyhub" ? `of which daemon ${fmt(helpersMb, "MB")}` : "",
      },
      {
        subject: `${s.label} per idle session`,
        unit: "MB",
        samples: [],
        value: per,
        baseline: "ptyhub per idle session",
        note: `(with ${SESSIONS} − with 1) / ${SESSIONS - 1}`,
      },
      {
        subject: `${s.label} peak during ${floodMs / 1000} s flood`,
        unit: "MB",
        samples: [],
        value: peak,
        baseline: `ptyhub peak during ${floodMs / 1000} s flood`,
        note: `max of ${fl.length} round(s), sampled every ${SAMPLE_EVERY_MS} ms`,
      },
      {
        subject: `${s.label} at the end of the flood`,
        unit: "MB",
        samples: [],
        value: atEnd,
        baseline: "ptyhub at the end of the flood",
      },
      {
        subject: `${s.label} 1 s after ctrl+c`,
        unit: "MB",
        samples: [],
        value: after,
        baseline: "ptyhub 1 s after ctrl+c",
      },
    );
    if (s.kind === "ptyhub") {
      const cpu = median(nums(list.map((x) => x.idleCpuPct)));
      mem.notes.push(
        `CPU of ${s.label} (server + daemon) with ${SESSIONS} idle sessions: ${cpu === null ? "?" : cpu.toFixed(2)} % of a core over ${IDLE_CPU_WINDOW_MS / 1000} s.`,
      );
      mem.checks.push(
        {
          goal: `CPU with ${SESSIONS} idle sessions ≤ ${TARGET_IDLE_CPU_PCT} % of a core`,
          actual: cpu === null ? "n/a" : `${cpu.toFixed(2)} %`,
          met: cpu !== null && cpu <= TARGET_IDLE_CPU_PCT,
        },
        {
          goal: `idle RSS ≤ ${TARGET_IDLE_MB} MB`,
          actual: fmt(idleMb, "MB"),
          met: idleMb !== null && idleMb <= TARGET_IDLE_MB,
        },
        {
          goal: `≤ ${TARGET_PER_SESSION_MB} MB more per idle session`,
          actual: fmt(per, "MB"),
          met: per !== null && per <= TARGET_PER_SESSION_MB,
        },
        {
          goal: `peak RSS during the flood ≤ ${TARGET_PEAK_MB} MB`,
          actual: fmt(peak, "MB"),
          met: peak !== null && peak <= TARGET_PEAK_MB,
        },
      );
      if (idleMb === null || withMb === null || peak === null) mem.errors.push("ptyhub's RSS could not be read");
    }
  }
  mem.tables.push({
    title: "RSS (VmRSS) of the server process plus ptyhub's session daemon; sessions' shells not included",
    kind: "value",
    rows: memRows,
  });
  // Issue #11: two sessions flooding at once for 60 s, and the RSS after they stop.
  await twoFloods(mem, hubSpec, ctx.ptyai, ctx.smoke);

  const respRows: Row[] = [];
  for (const [label, fl] of [
    ...subjects.map((s) => [s.label, floods.get(s.label) ?? []] as const),
    ["bare", floods.get("bare") ?? []] as const,
  ]) {
    const samples = fl.flatMap((f) => f.latencies);
    const correct = fl.reduce((n, f) => n + f.correct, 0);
    const subject =
      label === "ptyhub" ? "ptyhub term_exec" : label === "ptyai" ? "ptyai settle_ms 50" : "bare PTY (no MCP)";
    respRows.push({
      subject,
      unit: "ms",
      samples,
      correct: { ok: correct, of: samples.length },
      baseline: "ptyhub term_exec",
      note: fl.map((f) => f.note).join(" / "),
    });
  }
  resp.tables.push({
    title: `\`echo hi\` in B during ${floodMs / 1000} s of \`yes\` in A (${rounds} round(s))`,
    kind: "latency",
    rows: respRows,
  });
  const hub = respRows[0]!;
  const hp95 = p95(hub.samples);
  const hp50 = median(hub.samples);
  resp.checks.push({
    goal: `flood: \`echo hi\` p95 ≤ ${TARGET_FLOOD_P95_MS} ms, median ≤ ${TARGET_FLOOD_MEDIAN_MS} ms`,
    actual: `p50 ${fmt(hp50, "ms")}, p95 ${fmt(hp95, "ms")}`,
    met: hp95 !== null && hp50 !== null && hp95 <= TARGET_FLOOD_P95_MS && hp50 <= TARGET_FLOOD_MEDIAN_MS,
  });
  if (hub.samples.length === 0) resp.errors.push("no ptyhub sample completed during the flood");
  else if (hub.correct!.ok !== hub.correct!.of)
    resp.errors.push(`ptyhub returned ${hub.correct!.of - hub.correct!.ok} incorrect results during the flood`);
  return [mem, resp];
}
