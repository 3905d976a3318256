/**
 * Metric 1, command latency: `echo hi` in a warm shell session until the result, with a correct
 * completion signal, is in the client's hands. Subjects are interleaved: each iteration runs
 * every subject once, in an order rotated per iteration.
 */
import { BareShell } from "../lib/bare.ts";
import { McpServer } from "../lib/mcp.ts";
import { ensureMinimalServer } from "../lib/peers.ts";
import { PtyaiShell, PtyhubShell, ptyaiModeLabel, type PtyaiMode, type Timed } from "../lib/shells.ts";
import { median, fmt, ratio } from "../lib/stats.ts";
import { emptyResult, peer, type Ctx, type MetricResult, type Row } from "../lib/types.ts";
import { runInterleaved } from "../lib/interleave.ts";
import { SessionProbe } from "../lib/session-probe.ts";

const COMMAND = "echo hi";
/** Output, a pause longer than ptyai's short settle, then the awaited word. */
const PAUSE_COMMAND = "echo one; sleep 0.2; echo hi";
export const TARGET_MEDIAN_MS = 5;
export const TARGET_SPEEDUP = 5;
/**
 * Issue #11: ptyhub's `echo hi` at most this many times its floor, measured in the same run: a
 * minimal MCP server's tool-call round trip (the protocol's cost) plus the bare PTY's round trip.
 */
export const TARGET_VS_FLOOR = 1.3;
/** Issue #33's target for the same ratio, through the daemon (the default). */
export const TARGET_VS_FLOOR_DAEMON = 1.5;
const MINIMAL = "minimal SDK server tools/call";
const BARE = "bare PTY (no MCP)";
const HUB_LIST = "ptyhub term_list";
const INPROC_LIST = "ptyhub in-process term_list";
const SESSION_ONLY = "ptyhub session, no MCP";

interface Subject {
  label: string;
  incorrect?: boolean;
  note?: string;
  run: () => Promise<Timed>;
  row: Row;
}

export async function latency(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("latency", "1. Command latency: `echo hi` in a warm shell");
  const iterations = ctx.smoke ? 5 : 40;
  const warmup = ctx.smoke ? 2 : 5;
  const servers: McpServer[] = [];
  let bare: BareShell | null = null;
  let aiShellRef: PtyaiShell | null = null;
  let probe: SessionProbe | null = null;
  try {
    const subjects: Subject[] = [];
    const add = (label: string, run: () => Promise<Timed>, extra: Partial<Subject> = {}) =>
      subjects.push({
        label,
        run,
        ...extra,
        row: {
          subject: label,
          unit: "ms",
          samples: [],
          correct: { ok: 0, of: 0 },
          incorrect: extra.incorrect,
          note: extra.note,
          baseline: "ptyhub term_exec",
        },
      });

    const hub = (await McpServer.start(ctx.ptyhub)).server;
    servers.push(hub);
    const hubShell = new PtyhubShell(hub);
    add("ptyhub term_exec", () => hubShell.exec(COMMAND, "hi"), {
      note: "session in the daemon (default); via shell integration: exit code, output without echo",
    });
    const inproc = (await McpServer.start(ctx.ptyhubInproc)).server;
    servers.push(inproc);
    const inprocShell = new PtyhubShell(inproc);
    add("ptyhub in-process term_exec", () => inprocShell.exec(COMMAND, "hi"), {
      note: "PTYHUB_PERSISTENT=0: session inside the MCP server",
    });

    // For the breakdown: the same servers without a terminal (term_list), and the session layer
    // without MCP (bench/probe/session-exec.ts).
    const listed = async (server: McpServer): Promise<Timed> => {
      const c = await server.call("term_list", {});
      return { ms: c.ms, ok: !c.result.isError, detail: c.result.isError ? c.text.slice(0, 200) : "" };
    };
    add(HUB_LIST, () => listed(hub), { note: "no terminal: MCP, ptyhub's tool layer and the daemon hop" });
    add(INPROC_LIST, () => listed(inproc), { note: "no terminal: MCP and ptyhub's tool layer" });
    const sessionProbe = await SessionProbe.open();
    probe = sessionProbe;
    add(SESSION_ONLY, () => sessionProbe.exec(COMMAND, "hi"), {
      note: "LocalHost.exec in its own process: PTY, emulator, completion, guard, audit; timed inside",
    });

    const aiShell = ctx.ptyai
      ? await peer(res, "start", async () => {
          const ai = (await McpServer.start(ctx.ptyai!)).server;
          servers.push(ai);
          return PtyaiShell.open(ai);
        })
      : null;
    if (aiShell) {
      aiShellRef = aiShell;
      const modes: Array<[PtyaiMode, Partial<Subject>]> = [
        [{ default_settle: true }, { note: "returns after 300 ms of silence: a guess, no exit code" }],
        [{ settle_ms: 50 }, { note: "returns after 50 ms of silence: a guess, no exit code" }],
        [
          { wait_for: "hi" },
          { incorrect: true, note: "INCORRECT: the regex matches the echo of `echo hi`, before the command ran" },
        ],
      ];
      for (const [mode, extra] of modes) {
        add(
          ptyaiModeLabel(mode),
          async () => {
            await aiShell.clear();
            return aiShell.exec(COMMAND, "hi", mode);
          },
          extra,
        );
      }
    } else if (!ctx.ptyai) {
      res.notes.push("ptyai unavailable: only ptyhub and the bare PTY were measured.");
    }

    const minimalBin = ensureMinimalServer(ctx.log);
    if (minimalBin.ok) {
      const minimal = (await McpServer.start({ label: "minimal-sdk", command: minimalBin.value, args: [] })).server;
      servers.push(minimal);
      add(
        MINIMAL,
        async () => {
          const c = await minimal.call("echo", { text: "hi" });
          const first = c.result.content[0];
          const ok = first?.type === "text" && first.text === "hi";
          return { ms: c.ms, ok, detail: ok ? "" : JSON.stringify(c.result).slice(0, 200) };
        },
        { note: "one trivial tool, no terminal: the protocol's share of the floor" },
      );
    } else res.notes.push(`The minimal SDK server could not be built: ${minimalBin.reason}`);

    bare = await BareShell.open();
    const bareShell = bare;
    add(BARE, async () => ({ ms: await bareShell.run(COMMAND, "hi"), ok: true, detail: "" }), {
      note: "Bun.spawn terminal, bash, prompt seen after output",
    });

    await runInterleaved(subjects, {
      warmup,
      iterations,
      notes: res.notes,
      onIncorrect: (row, t) => {
        if (!row.incorrect && row.correct!.of - row.correct!.ok <= 2)
          ctx.log(`  ${row.subject}: incorrect result: ${t.detail}`);
      },
    });
    res.tables.push({ title: "`echo hi` latency", kind: "latency", rows: subjects.map((s) => s.row) });
    res.tables.push(await warmSession(sessionProbe, bareShell, ctx.smoke ? 20 : WARMING_COMMANDS, iterations));

    // The same modes on a command that pauses: silence and a screen regex are guesses, and this
    // is where they guess wrong. Correct means the result shows "hi" and the next prompt.
    const pauseRuns = ctx.smoke ? 2 : 5;
    const pauseRows: Row[] = [];
    const pauseRow = (subject: string, note: string, incorrect = false): Row => {
      const row: Row = {
        subject,
        unit: "ms",
        samples: [],
        correct: { ok: 0, of: 0 },
        note,
        incorrect,
        baseline: "ptyhub term_exec",
      };
      pauseRows.push(row);
      return row;
    };
    const record = (row: Row, t: Timed) => {
      row.samples.push(t.ms);
      row.correct!.of++;
      if (t.ok) row.correct!.ok++;
    };
    const hubPause = pauseRow("ptyhub term_exec", "waits for the shell's end mark");
    const aiPause: Array<[PtyaiMode, Row]> = [];
    if (aiShellRef) {
      for (const mode of [{ default_settle: true }, { settle_ms: 50 }, { wait_for: "hi" }] as PtyaiMode[]) {
        const label = ptyaiModeLabel(mode);
        aiPause.push([
          mode,
          pauseRow(
            label,
            "settle_ms" in mode || "default_settle" in mode
              ? "returns at the first silence longer than settle"
              : "matches the echo of the typed line",
            !("default_settle" in mode),
          ),
        ]);
      }
    }
    for (let i = 0; i < pauseRuns; i++) {
      record(hubPause, await hubShell.exec(PAUSE_COMMAND, "hi"));
      for (const [mode, row] of aiPause) {
        const t = await peer(res, ptyaiModeLabel(mode), async () => {
          await aiShellRef!.clear();
          return aiShellRef!.exec(PAUSE_COMMAND, "hi", mode);
        });
        if (t) record(row, t);
      }
    }
    res.tables.push({
      title: `The same modes on a command that pauses: \`${PAUSE_COMMAND}\``,
      kind: "latency",
      rows: pauseRows,
    });

    const hubRow = subjects[0]!.row;
    if (hubRow.correct!.ok !== hubRow.correct!.of)
      res.errors.push(
        `ptyhub term_exec returned ${hubRow.correct!.of - hubRow.correct!.ok} incorrect results for \`echo hi\``,
      );
    const hubMed = median(hubRow.samples);
    res.checks.push({
      goal: `\`echo hi\` median ≤ ${TARGET_MEDIAN_MS} ms`,
      actual: fmt(hubMed, "ms"),
      met: hubMed !== null && hubMed <= TARGET_MEDIAN_MS,
    });
    const medianOf = (label: string) => median(subjects.find((s) => s.label === label)?.row.samples ?? []);
    const minimalMed = medianOf(MINIMAL);
    const bareMed = medianOf(BARE);
    const floor = minimalMed !== null && bareMed !== null ? minimalMed + bareMed : null;
    const inprocMed = medianOf("ptyhub in-process term_exec");
    res.checks.push({
      goal: `\`echo hi\` ≤ ${TARGET_VS_FLOOR}× its floor (minimal MCP round trip + bare PTY round trip)`,
      actual:
        floor === null
          ? "floor not measured"
          : `${fmt(hubMed, "ms")} (in-process ${fmt(inprocMed, "ms")}) vs ${fmt(floor, "ms")} = ${fmt(minimalMed, "ms")} + ${fmt(bareMed, "ms")}`,
      met: floor !== null && hubMed !== null ? hubMed <= TARGET_VS_FLOOR * floor : null,
    });
    res.checks.push({
      goal: `\`echo hi\` through the daemon ≤ ${TARGET_VS_FLOOR_DAEMON}× its floor (issue #33)`,
      actual:
        floor === null || hubMed === null
          ? "floor not measured"
          : `${fmt(hubMed, "ms")} vs ${fmt(floor, "ms")} (${(hubMed / floor).toFixed(2)}×)`,
      met: floor !== null && hubMed !== null ? hubMed <= TARGET_VS_FLOOR_DAEMON * floor : null,
    });
    res.tables.push(breakdown(medianOf, hubMed, inprocMed));
    // ptyai's best correct mode: the fastest one whose every sample was correct.
    const correctPeers = subjects.filter(
      (s) =>
        s.label.startsWith("ptyai") &&
        !s.incorrect &&
        s.row.correct!.ok === s.row.correct!.of &&
        s.row.correct!.of !== 0,
    );
    const best = correctPeers.sort(
      (a, b) => (median(a.row.samples) ?? Infinity) - (median(b.row.samples) ?? Infinity),
    )[0];
    if (best) {
      const bm = median(best.row.samples);
      res.checks.push({
        goal: `≥ ${TARGET_SPEEDUP}× faster than ptyai's best correct mode`,
        actual: `${ratio(bm, hubMed)} (vs ${best.label}, ${fmt(bm, "ms")})`,
        met: bm !== null && hubMed !== null && bm / hubMed >= TARGET_SPEEDUP,
      });
    } else {
      res.checks.push({
        goal: `≥ ${TARGET_SPEEDUP}× faster than ptyai's best correct mode`,
        actual: ctx.ptyai ? "no ptyai mode was correct every time" : "ptyai unavailable",
        met: null,
      });
    }
  } finally {
    for (const s of servers) await s.close();
    await bare?.close();
    await probe?.close();
    for (const s of servers)
      if (s.leftovers.length)
        res.notes.push(
          `${s.label} left ${s.leftovers.length} process(es) running after its client closed: ${s.leftovers.join("; ")}`,
        );
  }
  return res;
}

/** Commands run in the session probe before its warm samples (the daemon of a working day sees more). */
const WARMING_COMMANDS = 600;

/**
 * The session layer again after many commands in the same process: the samples above come from
 * a process that has run about 45, and the difference is how much of the session layer's share
 * is the engine still compiling its hot paths (measured: a fresh session in a process warmed with
 * another session's commands is as fast as this).
 */
async function warmSession(probe: SessionProbe, bare: BareShell, warming: number, iterations: number) {
  for (let i = 0; i < warming; i++) await probe.exec(COMMAND, "hi");
  const warm: Row = { subject: `${SESSION_ONLY}, after ${warming} more commands`, unit: "ms", samples: [] };
  const bareRow: Row = { subject: BARE, unit: "ms", samples: [] };
  warm.correct = { ok: 0, of: 0 };
  for (let i = 0; i < iterations; i++) {
    const t = await probe.exec(COMMAND, "hi");
    warm.samples.push(t.ms);
    warm.correct.of++;
    if (t.ok) warm.correct.ok++;
    bareRow.samples.push(await bare.run(COMMAND, "hi"));
  }
  return {
    title: "The session layer once its process has warmed up (interleaved with the bare PTY)",
    kind: "latency" as const,
    rows: [warm, bareRow],
  };
}

/**
 * Where `echo hi` goes beyond its floor, from the medians above (differences of medians, so an
 * estimate: each part is what one more layer adds to the layer below it).
 */
function breakdown(medianOf: (label: string) => number | null, hubMed: number | null, inprocMed: number | null) {
  const minimal = medianOf(MINIMAL);
  const bare = medianOf(BARE);
  const inprocList = medianOf(INPROC_LIST);
  const hubList = medianOf(HUB_LIST);
  const sessionOnly = medianOf(SESSION_ONLY);
  const diff = (a: number | null, b: number | null) => (a !== null && b !== null ? a - b : null);
  const parts: Array<[string, number | null, string]> = [
    ["MCP round trip (floor)", minimal, "minimal SDK server, one trivial tool"],
    ["PTY round trip (floor)", bare, "bash in a bare PTY: type, see output and prompt"],
    ["ptyhub's tool layer", diff(inprocList, minimal), "in-process term_list − minimal server"],
    ["daemon hop", diff(hubList, inprocList), "term_list through the daemon − in-process term_list"],
    [
      "session: emulator, completion, guard, audit",
      diff(sessionOnly, bare),
      "LocalHost.exec without MCP − bare PTY round trip",
    ],
    [
      "rest (the exec call's own MCP and hop costs)",
      diff(hubMed, (hubList ?? Number.NaN) + (sessionOnly ?? Number.NaN)),
      "daemon term_exec − daemon term_list − session without MCP",
    ],
    ["= ptyhub term_exec (daemon)", hubMed, ""],
    ["in-process term_exec, for comparison", inprocMed, ""],
  ];
  return {
    title: "Where ptyhub's `echo hi` goes (differences of the medians above)",
    kind: "value" as const,
    rows: parts.map(([subject, value, note]) => ({
      subject,
      unit: "ms" as const,
      samples: [],
      value: value !== null && Number.isFinite(value) ? value : null,
      note,
    })),
  };
}
