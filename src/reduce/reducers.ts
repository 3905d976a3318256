/**
 * Per-command reducers, opt-in (term_exec `reduce`, or the `reduce` setting): the first reducer
 * that applies to the command and its output rewrites it, and the result says what was dropped,
 * or that no reducer applied. Reducers see the command's whole rendered output, before the
 * call's token budget (items.ts), so the budget cuts the reduced text, not the raw one.
 */
import { compilerReducer } from "./compiler.ts";
import { gitDiffReducer, gitLogReducer, gitStatusReducer } from "./git.ts";
import { grepReducer } from "./grep.ts";
import { installReducer } from "./install.ts";
import { testsReducer, unittestReducer } from "./tests.ts";
import type { Reducer } from "./types.ts";

/**
 * Most specific first: `git grep` is grep, `cargo test` is a test run before a build, unittest's
 * own format before the other runners'.
 */
const REDUCERS: readonly Reducer[] = [
  gitStatusReducer,
  gitLogReducer,
  gitDiffReducer,
  grepReducer,
  unittestReducer,
  testsReducer,
  installReducer,
  compilerReducer,
];

export interface Reduction {
  text: string;
  /** For the result: which reducer, and what it left out. */
  note: string;
}

export function reduceOutput(command: string, output: string): Reduction | null {
  const r = reduceOrSay(command, output);
  return r.text === null ? null : { text: r.text, note: r.note };
}

/**
 * The reduced output with its note, or null text with a note saying why nothing was reduced:
 * no reducer knows this command and output, or the ones that do found nothing to drop.
 */
export function reduceOrSay(command: string, output: string): { text: string | null; note: string } {
  const tried: string[] = [];
  for (const r of REDUCERS) {
    if (!r.applies(command, output)) continue;
    tried.push(r.name);
    const reduced = r.reduce(output);
    if (reduced && reduced.text.length < output.length) {
      return { text: reduced.text, note: `reduced (${r.name}): dropped ${reduced.dropped}` };
    }
  }
  if (tried.length === 0) return { text: null, note: "not reduced: no reducer knows this command or output" };
  return { text: null, note: `not reduced (${tried.join(", ")}): nothing to drop` };
}
