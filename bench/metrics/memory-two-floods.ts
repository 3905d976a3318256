/**
 * Part of metric 4 (issue #11): RSS while two sessions flood `yes` at once for 60 s, and how far
 * it comes back once both are interrupted. RSS is the server process plus ptyhub's session
 * daemon (rssAll), sampled every SAMPLE_EVERY_MS; the sessions' own programs are not counted.
 *
 * "Back near idle" is defined against the same server with the same two sessions open and idle,
 * measured just before the floods: the RSS 5 s after both floods are stopped must be within
 * NEAR_IDLE_SLACK_MB of it. (The sessions stay open, so each keeps its history of the flood:
 * that part is live memory by design, bounded by src/terminal/history.ts.)
 */
import { McpServer, structured, type ServerSpec } from "../lib/mcp.ts";
import { PtyaiShell } from "../lib/shells.ts";
import { fmt, max, median } from "../lib/stats.ts";
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

interface TwoFloods {
  /** Server + daemon with both sessions open and idle, before the floods. */
  idle: number | null;
  peak: number | null;
  /** The daemon's share at the peak sample (0 without a daemon). */
  peakHelpers: number;
  /** RSS at AFTER_MS after both floods were stopped. */
  after: Array<number | null>;
  note: string;
}

async function steady(server: McpServer): Promise<number | null> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = server.rssAll().total;
    if (r !== null) samples.push(r);
    await Bun.sleep(100);
  }
  return median(samples);
}

/** Samples server + helpers until stopped; keeps the peak and the helpers' share in it. */
function sampler(server: McpServer): () => { peak: number | null; helpers: number } {
  let peak: number | null = null;
  let helpers = 0;
  const tick = () => {
    const r = server.rssAll();
    if (r.total !== null && (peak === null || r.total > peak)) {
      peak = r.total;
      helpers = r.helpers;
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

/** RSS at each of AFTER_MS, counted from `stoppedAt`. */
async function afterStop(server: McpServer, stoppedAt: number): Promise<Array<number | null>> {
  const out: Array<number | null> = [];
  for (const at of AFTER_MS) {
    const wait = stoppedAt + at - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    out.push(server.rssAll().total);
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
      ["A", "B"].map((session) =>
        server.call("term_send", { session, keys: ["ctrl+c"], wait_ms: 30_000 }, 90_000),
      ),
    );
    const stoppedAt = performance.now();
    const { peak, helpers } = stop();
    const after = await afterStop(server, stoppedAt);
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
  for (const [label, r] of results) {
    const base = (what: string) => `ptyhub ${what}`;
    rows.push(
      {
        subject: `${label} two idle sessions (before)`,
        unit: "MB",
        samples: [],
        value: r.idle,
        baseline: base("two idle sessions (before)"),
      },
      {
        subject: `${label} peak, two sessions flood ${secs}`,
        unit: "MB",
        samples: [],
        value: r.peak,
        baseline: base(`peak, two sessions flood ${secs}`),
        note:
          (label === "ptyhub" ? `of which daemon ${fmt(r.peakHelpers, "MB")}; ` : "") +
          `sampled every ${SAMPLE_EVERY_MS} ms; ${r.note}`,
      },
      ...AFTER_MS.map((at, i) => ({
        subject: `${label} ${at / 1000} s after both stopped`,
        unit: "MB" as const,
        samples: [],
        value: r.after[i] ?? null,
        baseline: base(`${at / 1000} s after both stopped`),
      })),
    );
  }
  mem.tables.push({
    title: `Two sessions flooding \`yes\` at once for ${secs}: RSS of the server plus ptyhub's daemon`,
    kind: "value",
    rows,
  });
  const hubResult = results[0]![1];
  const last = hubResult.after[hubResult.after.length - 1] ?? null;
  const nearIdle = hubResult.idle !== null ? hubResult.idle + NEAR_IDLE_SLACK_MB : null;
  const checks: Check[] = [
    {
      goal: `peak RSS, two sessions flood ${secs} ≤ ${TARGET_TWO_FLOODS_PEAK_MB} MB`,
      actual: fmt(hubResult.peak, "MB"),
      met: hubResult.peak !== null && hubResult.peak <= TARGET_TWO_FLOODS_PEAK_MB,
    },
    {
      goal:
        `back near idle ${AFTER_MS[AFTER_MS.length - 1]! / 1000} s after both floods stop ` +
        `(≤ RSS with the two sessions idle + ${NEAR_IDLE_SLACK_MB} MB)`,
      actual: `${fmt(last, "MB")} (idle with the sessions ${fmt(hubResult.idle, "MB")})`,
      met: last !== null && nearIdle !== null && last <= nearIdle,
    },
  ];
  mem.checks.push(...checks);
  mem.notes.push(
    `"Near idle" after the two floods: within ${NEAR_IDLE_SLACK_MB} MB of the same server's RSS with the same ` +
      "two sessions open and idle, read just before the floods; the sessions stay open, so their histories " +
      "(bounded) are still held.",
  );
  if (hubResult.peak === null || max(hubResult.after.filter((x): x is number => x !== null)) === null)
    mem.errors.push("ptyhub's RSS could not be read during the two floods");
}
