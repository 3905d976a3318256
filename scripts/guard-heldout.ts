/**
 * Scores the guard on the held-out corpus (test/heldout/guard-corpus.jsonl, written apart from
 * the rules): recall over the dangerous lines and precision over what it stopped, overall and per
 * class. A line counts as stopped when any built-in rule finds it, judged as in a workspace with
 * uncommitted changes on `main` (so the git rules apply as they would there).
 *
 *   bun scripts/guard-heldout.ts [--second | --third] [--misses]
 *     --second   the second corpus (test/heldout/guard-corpus-2.jsonl) instead of the first
 *     --third    the third (test/heldout/guard-corpus-3.jsonl)
 *     --misses   prints the lines missed: for a person checking a label, never for writing a rule
 */
import { HELD_OUT_CORPORA, heldOutScores } from "../bench/lib/guard-heldout.ts";

const corpus = process.argv.includes("--third")
  ? HELD_OUT_CORPORA.third
  : process.argv.includes("--second")
    ? HELD_OUT_CORPORA.second
    : HELD_OUT_CORPORA.first;
const scores = heldOutScores(corpus);
const pct = (x: number | null) => (x === null ? "—" : x.toFixed(3));
console.log(`class                 lines  stopped  recall  precision`);
for (const c of scores.classes) {
  console.log(
    `${c.name.padEnd(20)} ${String(c.lines).padStart(6)} ${String(c.stopped).padStart(8)}  ${pct(c.recall).padStart(6)}` +
      `  ${pct(c.precision).padStart(9)}`,
  );
}
console.log(
  `overall: recall ${pct(scores.recall)} (${scores.truePositives}/${scores.dangerous}), precision ${pct(scores.precision)} ` +
    `(${scores.truePositives}/${scores.stopped})`,
);
if (process.argv.includes("--misses")) {
  for (const m of scores.misses) console.log(`${m.dangerous ? "missed " : "stopped"} [${m.class}] ${m.line}`);
}
