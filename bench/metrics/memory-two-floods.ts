/**
 * Part of metric 4 (issue #11): memory while two sessions flood `yes` at once for 60 s, and how
 * far it comes back once both are interrupted. Measured for the server process plus ptyhub's
 * session daemon, sampled every SAMPLE_EVERY_MS, two ways: the sum of their RSS (as the rest of
 * this metric), and the sum of their PSS, which counts the pages they share once. The two run the
 * same executable, whose mapped code and bytecode (~40 MB resident for the compiled binary) a sum
 * of RSS counts twice although the kernel keeps it once; the target is checked on PSS, and both
 * are shown. The sessions' own programs are not counted.
 *
 * "Back near idle" is defined against the same server with the same two sessions open and idle,
 * measured just before the floods: the RSS 5 s after both floods are stopped must be within
 * NEAR_IDLE_SLACK_MB of it. (The sessions stay open, so each keeps its history of the flood:
 * that part is live memory by design, bounded by src/terminal/history.ts.)
 */
import { McpServer, structured, type ServerSpec } from "../lib/mcp.ts";
import { PtyaiShell } from "../lib/shells.ts";
import { fmt, median } from "../lib/stats.ts";
import { peer, type Check, type MetricResult, type Row } from "../lib/types.ts";

/** Issue #11: peak RSS while two sessions flood for 60 s. */
export const TARGET_TWO_FLOODS_PEAK_MB = 150;
/** Issue #11's "back near idle after": this close to RSS with the same sessions idle. */
export const NEAR_IDLE_SLACK_MB = 20;
const FLOOD_MS = 60_000;
const SMOKE_FLOOD_MS = 4_000;
/** When "after" is read, counted from the moment both floods were stopped. */
const AFTER_MS = [2_000, 5_000] as const;
const SAMPLE_EVERY_MS = 50;
/** Let the server settle after opening the sessions before reading its idle RSS. */
const SETTLE_MS = 1_500;

type Measure = "rss" | "pss";
const MEASURES: Measure[] = ["rss", "pss"];
type PerMeasure<T> = Record<Measure, T>;

interface TwoFloods {
  /** Server + daemon with both sessions open and idle, before the floods. */
  idle: PerMeasure<number | null>;
  peak: PerMeasure<number | null>;
  /** The daemon's share at the peak sample (0 without a daemon). */
  peakHelpers: PerMeasure<number>;
  /** At AFTER_MS after both floods were stopped. */
  after: PerMeasure<Array<number | null>>;
  note: string;
}

function read(server: McpServer, m: Measure): { helpers: number; total: number | null } {
  return m === "rss" ? server.rssAll() : server.pssAll();
}

async function steady(server: McpServer): Promise<PerMeasure<number | null>> {
  const samples: PerMeasure<number[]> = { rss: [], pss: [] };
  for (let i = 0; i < 5; i++) {
    for (const m of MEASURES) {
      const r = read(server, m).total;
      if (r !== null) samples[m].push(r);
    }
    await Bun.sleep(100);
  }
  return { rss: median(samples.rss), pss: median(samples.pss) };
}

/** Samples server + helpers until stopped; keeps each measure's peak and the helpers' share in it. */
function sampler(server: McpServer): () => { peak: PerMeasure<number | null>; helpers: PerMeasure<number> } {
  const peak: PerMeasure<number | null> = { rss: null, pss: null };
  const helpers: PerMeasure<number> = { rss: 0, pss: 0 };
  const tick = () => {
    for (const m of MEASURES) {
      const r = read(server, m);
      const top = peak[m];
      if (r.total !== null && (top === null || r.total > top)) {
        peak[m] = r.total;
        helpers[m] = r.helpers;
      }
    }
  };
  tick();
  const timer = setInterval(tick, SAMPLE_EVERY_MS);
  return () => {
    clearInterval(timer);
    tick();
    return { peak, helpers };
  };
}

/** Both measures at each of AFTER_MS, counted from `stoppedAt`. */
async function afterStop(server: McpServer, stoppedAt: number): Promise<PerMeasure<Array<number | null>>> {
  const out: PerMeasure<Array<number | null>> = { rss: [], pss: [] };
  for (const at of AFTER_MS) {
    const wait = stoppedAt + at - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    for (const m of MEASURES) out[m].push(read(server, m).total);
  }
  return out;
}

async function ptyhubTwoFloods(spec: ServerSpec, floodMs: number): Promise<TwoFloods> {
  const { server } = await McpServer.start(spec);
  try {
    for (const name of ["A", "B"]) await server.must("term_open", { name });
    await Bun.sleep(SETTLE_MS);
    const idle = await steady(server);
    const stop = sampler(server);
    // Both floods at once: each term_exec returns `running` when its timeout passes.
    const floods = ["A", "B"].map((session) =>
      server.call("term_exec", { session, command: "yes", timeout_ms: floodMs }, floodMs + 120_000),
    );
    const statuses = (await Promise.all(floods)).map((f) => String(structured(f).status));
    const stops = await Promise.all(
      ["A", "B"].map((session) => server.call("term_send", { session, keys: ["ctrl+c"], wait_ms: 30_000 }, 90_000)),
    );
    const stoppedAt = performance.now();
    const { peak, helpers } = stop();
    const after = await afterStop(server, stoppedAt);
    if (after.rss.includes(null))
      throw new Error(`ptyhub's server ended after the floods: ${server.stderr.slice(-600)}`);
    return {
      idle,
      peak,
      peakHelpers: helpers,
      after,
      note:
        `term_exec returned ${statuses.join(", ")}; ctrl+c → prompt in ` +
        stops.map((s) => `${fmt(s.ms, "ms")} (via ${String(structured(s).via)})`).join(", "),
    };
  } finally {
    await server.close();
  }
}

async function ptyaiTwoFloods(spec: ServerSpec, floodMs: number): Promise<TwoFloods> {
  const { server } = await McpServer.start(spec);
  try {
    const shells = [await PtyaiShell.open(server), await PtyaiShell.open(server)];
    await Bun.sleep(SETTLE_MS);
    const idle = await steady(server);
    const stop = sampler(server);
    for (const sh of shells) await sh.type("yes\r");
    await Bun.sleep(floodMs);
    for (const sh of shells) await sh.key("ctrl+c");
    // Until each screen is quiet again: what was queued behind the flood has been parsed.
    for (const sh of shells) {
      await server.call(
        "pty_wait",
        { session_id: sh.id, settle_ms: 300, timeout_ms: 120_000, include_screen: false },
        180_000,
      );
    }
    const stoppedAt = performance.now();
    const { peak, helpers } = stop();
    const after = await afterStop(server, stoppedAt);
    return { idle, peak, peakHelpers: helpers, after, note: "ctrl+c, then each screen quiet for 300 ms" };
  } finally {
    await server.close();
  }
}

/** Runs the two-flood round for ptyhub (and ptyai when given) and adds its rows and checks to `mem`. */
export async function twoFloods(
  mem: MetricResult,
  hub: ServerSpec,
  ptyai: ServerSpec | null,
  smoke: boolean,
): Promise<void> {
  const floodMs = smoke ? SMOKE_FLOOD_MS : FLOOD_MS;
  const secs = `${floodMs / 1000} s`;
  const results: Array<[string, TwoFloods]> = [["ptyhub", await ptyhubTwoFloods(hub, floodMs)]];
  if (ptyai) {
    const r = await peer(mem, "two-flood round", () => ptyaiTwoFloods(ptyai, floodMs));
    if (r) results.push(["ptyai", r]);
  }
  const rows: Row[] = [];
  for (const m of MEASURES) {
    const unit = m === "rss" ? "RSS sum" : "PSS sum";
    for (const [label, r] of results) {
      const subject = (what: string) => `${label} ${what} (${unit})`;
      const base = (what: string) => `ptyhub ${what} (${unit})`;
      rows.push(
        {
          subject: subject("two idle sessions, before"),
          unit: "MB",
          samples: [],
          value: r.idle[m],
          baseline: base("two idle sessions, before"),
        },
        {
          subject: subject(`peak, two sessions flood ${secs}`),
          unit: "MB",
          samples: [],
          value: r.peak[m],
          baseline: base(`peak, two sessions flood ${secs}`),
          note:
            (label === "ptyhub" ? `of which daemon ${fmt(r.peakHelpers[m], "MB")}; ` : "") +
            `sampled every ${SAMPLE_EVERY_MS} ms; ${r.note}`,
        },
        ...AFTER_MS.map((at, i) => ({
          subject: subject(`${at / 1000} s after both stopped`),
          unit: "MB" as const,
          samples: [],
          value: r.after[m][i] ?? null,
          baseline: base(`${at / 1000} s after both stopped`),
        })),
      );
    }
  }
  mem.tables.push({
    title: `Two sessions flooding \`yes\` at once for ${secs}: the server plus ptyhub's daemon`,
    kind: "value",
    rows,
  });
  const hubResult = results[0]![1];
  const lastAt = AFTER_MS[AFTER_MS.length - 1]! / 1000;
  const last = (m: Measure) => hubResult.after[m][hubResult.after[m].length - 1] ?? null;
  const both = (pick: (m: Measure) => number | null) => `${fmt(pick("pss"), "MB")} (RSS sum ${fmt(pick("rss"), "MB")})`;
  const nearIdle = hubResult.idle.pss !== null ? hubResult.idle.pss + NEAR_IDLE_SLACK_MB : null;
  const lastPss = last("pss");
  const checks: Check[] = [
    {
      goal: `peak memory (PSS), two sessions flood ${secs} ≤ ${TARGET_TWO_FLOODS_PEAK_MB} MB`,
      actual: both((m) => hubResult.peak[m]),
      met: hubResult.peak.pss !== null && hubResult.peak.pss <= TARGET_TWO_FLOODS_PEAK_MB,
    },
    {
      goal: `back near idle ${lastAt} s after both floods stop (≤ the two sessions idle + ${NEAR_IDLE_SLACK_MB} MB)`,
      actual: `${both(last)}; idle ${both((m) => hubResult.idle[m])}`,
      met: lastPss !== null && nearIdle !== null && lastPss <= nearIdle,
    },
  ];
  mem.checks.push(...checks);
  mem.notes.push(
    `Two floods: the target is checked on the PSS sum of the MCP server and its daemon (pages they share, ` +
      `above all the one executable's code, counted once); the RSS sum, which counts them twice, is shown beside it. ` +
      `"Near idle": within ${NEAR_IDLE_SLACK_MB} MB of the same server with the same two sessions open and idle, ` +
      "read just before the floods; the sessions stay open, so their histories (bounded) are still held.",
  );
  if (hubResult.peak.pss === null || hubResult.peak.rss === null || lastPss === null)
    mem.errors.push("ptyhub's memory could not be read during the two floods");
}
