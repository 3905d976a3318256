/**
 * Metric 2, output throughput: `seq 1 200000` (1.3 MB) until the final line is in the client's
 * hands with a completion signal. Subjects interleaved per iteration.
 */
import { BareShell } from "../lib/bare.ts";
import { McpServer } from "../lib/mcp.ts";
import { PtyaiShell, PtyhubShell, ptyaiModeLabel, type PtyaiMode, type Timed } from "../lib/shells.ts";
import { fmt, median } from "../lib/stats.ts";
import { runInterleaved, type TimedSubject } from "../lib/interleave.ts";
import { emptyResult, peer, type Ctx, type MetricResult } from "../lib/types.ts";

/** Issue #11: ptyhub's `seq 1 200000` at most this many times the bare PTY's, measured in the same run. */
export const TARGET_VS_BARE = 1.1;

export async function throughput(ctx: Ctx): Promise<MetricResult> {
  const N = ctx.smoke ? 20_000 : 200_000;
  const command = `seq 1 ${N}`;
  const res = emptyResult(
    "throughput",
    `2. Output throughput: \`seq 1 200000\`${ctx.smoke ? " (smoke: seq 1 20000)" : ""}`,
  );
  const iterations = ctx.smoke ? 2 : 10;
  const servers: McpServer[] = [];
  let bare: BareShell | null = null;
  try {
    const subjects: TimedSubject[] = [];
    const add = (subject: string, run: () => Promise<Timed>, note: string) =>
      subjects.push({
        run,
        row: { subject, unit: "ms", samples: [], correct: { ok: 0, of: 0 }, note, baseline: "ptyhub term_exec" },
      });

    const hub = (await McpServer.start(ctx.ptyhub)).server;
    servers.push(hub);
    const hubShell = new PtyhubShell(hub);
    add(
      "ptyhub term_exec",
      () => hubShell.exec(command, String(N)),
      "session in the daemon (default); max_tokens 4000: head + tail + omitted range",
    );
    const inproc = (await McpServer.start(ctx.ptyhubInproc)).server;
    servers.push(inproc);
    const inprocShell = new PtyhubShell(inproc);
    add(
      "ptyhub in-process term_exec",
      () => inprocShell.exec(command, String(N)),
      "PTYHUB_PERSISTENT=0: session inside the MCP server",
    );

    const aiShell = ctx.ptyai
      ? await peer(res, "start", async () => {
          const ai = (await McpServer.start(ctx.ptyai!)).server;
          servers.push(ai);
          return PtyaiShell.open(ai);
        })
      : null;
    if (aiShell) {
      for (const mode of [{ default_settle: true }, { settle_ms: 50 }] as PtyaiMode[]) {
        add(
          ptyaiModeLabel(mode),
          async () => {
            await aiShell.clear();
            return aiShell.exec(command, String(N), mode, 120_000);
          },
          "screen (last 50 rows) after silence",
        );
      }
    } else if (!ctx.ptyai) {
      res.notes.push("ptyai unavailable: only ptyhub and the bare PTY were measured.");
    }

    bare = await BareShell.open();
    const b = bare;
    add(
      "bare PTY (no MCP)",
      async () => ({ ms: await b.run(command, String(N)), ok: true, detail: "" }),
      "bytes read and dropped; last line + prompt seen",
    );

    await runInterleaved(subjects, {
      warmup: 1,
      iterations,
      notes: res.notes,
      onIncorrect: (row, t) => ctx.log(`  ${row.subject}: incorrect result: ${t.detail}`),
    });
    res.tables.push({
      title: `\`${command}\` until the last line is returned`,
      kind: "latency",
      rows: subjects.map((s) => s.row),
    });
    const hubRow = subjects[0]!.row;
    if (hubRow.correct!.ok !== hubRow.correct!.of)
      res.errors.push(
        `ptyhub term_exec returned ${hubRow.correct!.of - hubRow.correct!.ok} incorrect results for \`${command}\``,
      );
    const m = median(hubRow.samples);
    const bareMs = median(subjects.find((s) => s.row.subject === "bare PTY (no MCP)")!.row.samples);
    const goal = `\`seq 1 200000\` ≤ ${TARGET_VS_BARE}× the bare PTY's`;
    const actual = `${fmt(m, "ms")} vs ${fmt(bareMs, "ms")} (${m !== null && bareMs ? (m / bareMs).toFixed(2) : "?"}×)`;
    if (!ctx.smoke)
      res.checks.push({ goal, actual, met: m !== null && bareMs !== null && m <= TARGET_VS_BARE * bareMs });
    else res.checks.push({ goal, actual: `smoke ran seq 1 ${N}: ${actual}`, met: null });
  } finally {
    for (const s of servers) await s.close();
    await bare?.close();
    for (const s of servers)
      if (s.leftovers.length)
        res.notes.push(
          `${s.label} left ${s.leftovers.length} process(es) running after its client closed: ${s.leftovers.join("; ")}`,
        );
  }
  return res;
}
