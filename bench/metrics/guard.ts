/**
 * Metric 7, guard: what the guard adds before a line is typed. Each line of the guard's corpus
 * (test/guard/corpus.ts: everyday commands, dangerous ones and their look-alikes) is parsed and
 * judged by every built-in rule, in process, many times; the samples are per-line times.
 * Git's answers come from a fixed table: spawning git is what the two git rules cost on top,
 * and only for lines that run `git reset/clean/checkout/restore/push --force`.
 */
import { classifyShellLine, ruleSet } from "../../src/guard/classify.ts";
import type { RuleContext } from "../../src/guard/rules.ts";
import { dangerous, harmless } from "../../test/guard/corpus.ts";
import { fmt, p95 } from "../lib/stats.ts";
import { HELD_OUT_CORPORA, heldOutScores } from "../lib/guard-heldout.ts";
import { emptyResult, type Ctx, type MetricResult } from "../lib/types.ts";

/** The bound: the parse of a typical line stays well under a millisecond. */
export const TARGET_P95_MS = 1;
/** The held-out corpus's targets (test/heldout/README.md): stop what matters, ask little else. */
export const TARGET_HELDOUT_RECALL = 0.95;
export const TARGET_HELDOUT_PRECISION = 0.97;
/** Passes over the corpus (the first one warms the JIT and is not counted). */
const PASSES = { full: 50, smoke: 5 };

const context: RuleContext = {
  home: "/home/dev",
  cwd: "/home/dev/project",
  gitStatus: () => "",
  gitBranch: () => "feature",
};

export async function guard(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("guard", "Guard: parse and judge one typed line (in process)");
  const rules = ruleSet();
  const typical = harmless;
  const all = [...harmless, ...dangerous];
  const passes = ctx.smoke ? PASSES.smoke : PASSES.full;
  const measure = (lines: string[]): number[] => {
    const samples: number[] = [];
    for (let pass = 0; pass <= passes; pass++) {
      for (const line of lines) {
        const t0 = performance.now();
        classifyShellLine(line, context, rules);
        const ms = performance.now() - t0;
        if (pass > 0) samples.push(ms);
      }
    }
    return samples;
  };
  const typicalSamples = measure(typical);
  const allSamples = measure(all);
  res.tables.push({
    title: `classifyShellLine per line, ${passes} passes over the corpus`,
    kind: "latency",
    rows: [
      { subject: `harmless lines (${typical.length})`, unit: "ms", samples: typicalSamples },
      { subject: `all lines (${all.length}, with the dangerous ones)`, unit: "ms", samples: allSamples },
    ],
  });
  const worst = p95(typicalSamples);
  res.checks.push({
    goal: `guard p95 per typical line < ${TARGET_P95_MS} ms`,
    actual: fmt(worst, "ms"),
    met: worst === null ? null : worst < TARGET_P95_MS,
  });
  for (const [name, path] of Object.entries(HELD_OUT_CORPORA)) {
    const heldOut = heldOutScores(path);
    res.checks.push({
      goal: `held-out corpus (${name}) recall ≥ ${TARGET_HELDOUT_RECALL} (${heldOut.dangerous} dangerous lines)`,
      actual: heldOut.recall.toFixed(3),
      met: heldOut.recall >= TARGET_HELDOUT_RECALL,
    });
    res.checks.push({
      goal: `held-out corpus (${name}) precision ≥ ${TARGET_HELDOUT_PRECISION} (of ${heldOut.stopped} stopped)`,
      actual: heldOut.precision.toFixed(3),
      met: heldOut.precision >= TARGET_HELDOUT_PRECISION,
    });
  }
  return res;
}
