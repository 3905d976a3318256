/**
 * Metric 9, waiting for input: how fast ptyhub reports `input` for a program blocked reading the
 * terminal (`cat`, `read -r x`), which the kernel says (src/util/tty-wait.ts), beside the same
 * call ending on what the shell reports (`echo hi`, via shell integration) in the same warm
 * session. The difference is what noticing the wait costs over a completion the shell announces.
 * Each program is ended after its sample (untimed), so every sample starts at a prompt.
 */
import { McpServer, structured } from "../lib/mcp.ts";
import { PtyhubShell, type Timed } from "../lib/shells.ts";
import { fmt, median } from "../lib/stats.ts";
import { runInterleaved } from "../lib/interleave.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

/** Issue 22: input reported within this long of the program blocking (the whole call, median). */
export const TARGET_INPUT_MS = 100;
/** The call's own bound: without a signal for input, this is when the answer would come. */
const EXEC_TIMEOUT_MS = 30_000;
const BASELINE = "ptyhub term_exec `echo hi` (done via shell)";

export async function inputWait(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("input", "9. Input reported for a program blocked reading the terminal");
  const iterations = ctx.smoke ? 3 : 30;
  const warmup = ctx.smoke ? 1 : 3;
  let server: McpServer | null = null;
  try {
    server = (await McpServer.start(ctx.ptyhub)).server;
    const caller = server;
    const shell = new PtyhubShell(caller);
    /** term_exec of a program that reads the terminal; correct when it answers input via tty. */
    const blocked = async (command: string, end: Record<string, unknown>): Promise<Timed> => {
      const r = await caller.call("term_exec", { command, timeout_ms: EXEC_TIMEOUT_MS }, EXEC_TIMEOUT_MS + 30_000);
      const s = structured(r);
      const ok = !r.result.isError && s.status === "input" && s.via === "tty";
      // Untimed: end the program so the next sample starts at the prompt.
      await caller.must("term_send", { session: "main", ...end });
      const detail = `status ${String(s.status)} via ${String(s.via)} state ${String(s.state)}`;
      return { ms: r.ms, ok, detail: ok ? "" : detail };
    };
    const row = (subject: string, note: string): Row => ({
      subject,
      unit: "ms",
      samples: [],
      correct: { ok: 0, of: 0 },
      note,
      baseline: BASELINE,
    });
    const subjects = [
      { row: row(BASELINE, "the same call, ended by the shell's end mark"), run: () => shell.exec("echo hi", "hi") },
      {
        row: row("ptyhub term_exec `cat` → input", "cat blocks in read(2) of the tty; ended with ctrl+d"),
        run: () => blocked("cat", { keys: ["ctrl+d"] }),
      },
      {
        row: row("ptyhub term_exec `read -r x` → input", "bash's read builtin; answered with a line"),
        run: () => blocked("read -r x", { text: "answer" }),
      },
    ];
    await runInterleaved(subjects, {
      warmup,
      iterations,
      notes: res.notes,
      onIncorrect: (r, t) => ctx.log(`  ${r.subject}: incorrect result: ${t.detail}`),
    });
    res.tables.push({
      title: "`term_exec` until the answer, ms (MCP round trip included)",
      kind: "latency",
      rows: subjects.map((s) => s.row),
    });
    for (const s of subjects) {
      if (s.row.correct!.ok !== s.row.correct!.of)
        res.errors.push(`${s.row.subject} returned ${s.row.correct!.of - s.row.correct!.ok} incorrect results`);
    }
    const base = median(subjects[0]!.row.samples);
    const cat = median(subjects[1]!.row.samples);
    res.checks.push({
      goal: `input reported ≤ ${TARGET_INPUT_MS} ms after a program blocks reading the terminal (term_exec \`cat\`, median)`,
      actual: cat === null ? "n/a" : fmt(cat, "ms"),
      met: cat === null ? null : cat <= TARGET_INPUT_MS,
    });
    if (base !== null && cat !== null)
      res.notes.push(
        `Noticing the wait adds ${fmt(cat - base, "ms")} (medians) over a command the shell reports done; ` +
          `without the kernel's word the same call answered \`running\` at its timeout (${EXEC_TIMEOUT_MS} ms).`,
      );
  } finally {
    await server?.close();
    if (server && server.leftovers.length)
      res.notes.push(
        `${server.label} left ${server.leftovers.length} process(es) running: ${server.leftovers.join("; ")}`,
      );
  }
  return res;
}
