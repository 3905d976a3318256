/**
 * Per-command reducers, opt-in (term_exec `reduce`, or the `reduce` setting): the first reducer
 * that applies to the command and its output rewrites it, and the result says what was dropped.
 * Reducers work on the rendered output within the call's budget, so the truncation note (which
 * history lines were left out) stays exact.
 */
import { compilerReducer } from "./compiler.ts";
import { gitDiffReducer, gitLogReducer, gitStatusReducer } from "./git.ts";
import { grepReducer } from "./grep.ts";
import { installReducer } from "./install.ts";
import { testsReducer } from "./tests.ts";
import type { Reducer } from "./types.ts";

/** Most specific first: `git grep` is grep, `cargo test` is a test run before a build. */
const REDUCERS: readonly Reducer[] = [
  gitStatusReducer,
  gitLogReducer,
  gitDiffReducer,
  grepReducer,
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
  for (const r of REDUCERS) {
    if (!r.applies(command, output)) continue;
    const reduced = r.reduce(output);
    if (reduced && reduced.text.length < output.length) {
      return { text: reduced.text, note: `reduced (${r.name}): dropped ${reduced.dropped}` };
    }
  }
  return null;
}
