/**
 * Metric 9, push not poll: the delay from a long command's end to the model's new turn, with
 * interactive Claude Code 2.1.330 (a scripted mock model) and ptyhub answering the call as an MCP
 * Task at the default poll interval. The command prints the time it ended; the mock logs when the
 * turn Claude Code started by itself arrived. Needs the rig (test/helpers/claude-rig.ts): without
 * it the metric says so and measures nothing.
 */
import { findRig, RigRun } from "../../test/helpers/claude-rig.ts";
import { join } from "node:path";
import { benchRoot } from "../lib/env.ts";
import { fmt, median } from "../lib/stats.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

/** Issue #26: at most this long from a command's end to the model's new turn (median). */
export const TARGET_WAKE_MS = 2500;
/** Long enough to outlive the default inline window (3 s) by a few polls. */
const COMMAND = "sleep 8; echo BUILD-OK at $(date +%s%3N)";
const STEP_TIMEOUT_MS = 60_000;

export async function taskWake(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult(
    "taskwake",
    "9. Push, not poll: a command's end → the model's new turn (Claude Code, MCP Tasks)",
  );
  const rig = findRig();
  if ("missing" in rig) {
    res.notes.push(`Not measured: ${rig.missing}.`);
    return res;
  }
  const iterations = ctx.smoke ? 1 : 5;
  // The binary when there is one: Claude Code serves a server that answers its server/discover probe
  // late (a slow start from source on a loaded machine) in the old era, where nothing becomes a task.
  const server: Record<string, string> = ctx.binary ? { PTYHUB_BIN: ctx.binary.command } : {};
  const how = ctx.binary ? "ptyhub binary" : "bun src/cli.ts";
  const row: Row = {
    subject: "ptyhub, interactive Claude Code",
    unit: "ms",
    samples: [],
    note: `${how}, default poll interval`,
  };
  for (let i = 0; i < iterations; i++) {
    const run = await RigRun.start(rig, {
      scratch: join(benchRoot(), `claude-rig-${i}`),
      steps: [["term_exec", { command: COMMAND }]],
      env: { PTYHUB_PERSISTENT: "0", ...server },
    });
    try {
      const placeholder = await run.request((r) => r.text.includes("moved to the background"), STEP_TIMEOUT_MS);
      const woken = await run.request((r) => r.text.includes("BUILD-OK at"), STEP_TIMEOUT_MS, placeholder.index + 1);
      const ended = Number(/BUILD-OK at (\d+)/.exec(woken.text)?.[1]);
      if (!Number.isFinite(ended)) throw new Error("the woken turn did not carry the command's end time");
      row.samples.push(woken.t - ended);
      ctx.log(`  taskwake ${i + 1}/${iterations}: ${woken.t - ended} ms`);
    } catch (err) {
      // What Claude Code made of ptyhub: the era it settled on, and how far the script got.
      const seen = `era ${run.era() ?? "not connected"}, ${run.requests().length} model requests`;
      res.errors.push(`taskwake: ${(err as Error).message.split("\n")[0]} (${seen})`);
      for (const line of run.debugTail()) res.notes.push(`Claude Code's debug log: ${line}`);
      break;
    } finally {
      await run.stop();
    }
  }
  res.tables.push({ title: "Command end → new model turn", rows: [row], kind: "latency" });
  const m = median(row.samples);
  res.checks.push({
    goal: `a command's end → the model's new turn ≤ ${TARGET_WAKE_MS} ms (median)`,
    actual: `${fmt(m)} ms`,
    met: m === null ? null : m <= TARGET_WAKE_MS,
  });
  return res;
}
