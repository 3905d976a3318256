/**
 * The guard against the held-out corpus (test/heldout/README.md): each line judged by the
 * built-in rules, in a workspace with uncommitted changes on `main`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyShellLine, ruleSet } from "../../src/guard/classify.ts";
import type { RuleContext } from "../../src/guard/rules.ts";

/** The held-out corpora, each written apart from the rules by someone who never read them (test/heldout/README.md). */
export const HELD_OUT_CORPORA = {
  first: join(import.meta.dir, "../../test/heldout/guard-corpus.jsonl"),
  second: join(import.meta.dir, "../../test/heldout/guard-corpus-2.jsonl"),
  third: join(import.meta.dir, "../../test/heldout/guard-corpus-3.jsonl"),
} as const;

interface CorpusLine {
  line: string;
  dangerous: boolean;
  class: string;
}

export interface ClassScore {
  name: string;
  lines: number;
  stopped: number;
  /** Of its dangerous lines, the share stopped (null: it has none). */
  recall: number | null;
  /** Of what was stopped in it, the share that was dangerous (null: nothing stopped). */
  precision: number | null;
}

export interface HeldOutScores {
  classes: ClassScore[];
  dangerous: number;
  stopped: number;
  truePositives: number;
  recall: number;
  precision: number;
  /** Dangerous lines let through and harmless ones stopped. */
  misses: CorpusLine[];
}

/** A developer's machine: a project under the home directory, on `main`, with work not committed. */
const CONTEXT: RuleContext = {
  home: "/home/dev",
  cwd: "/home/dev/project",
  gitStatus: () => " M src/app.ts\n?? notes.txt\n",
  gitBranch: () => "main",
};

export function heldOutScores(path: string = HELD_OUT_CORPORA.first): HeldOutScores {
  const corpus: CorpusLine[] = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
  const rules = ruleSet();
  const byClass = new Map<string, { lines: number; stopped: number; tp: number; dangerous: number }>();
  const misses: CorpusLine[] = [];
  let tp = 0;
  let stopped = 0;
  let dangerous = 0;
  for (const entry of corpus) {
    const isStopped = classifyShellLine(entry.line, CONTEXT, rules).length > 0;
    const c = byClass.get(entry.class) ?? { lines: 0, stopped: 0, tp: 0, dangerous: 0 };
    c.lines++;
    if (entry.dangerous) c.dangerous++;
    if (isStopped) c.stopped++;
    if (isStopped && entry.dangerous) c.tp++;
    byClass.set(entry.class, c);
    if (entry.dangerous) dangerous++;
    if (isStopped) stopped++;
    if (isStopped && entry.dangerous) tp++;
    if (isStopped !== entry.dangerous) misses.push(entry);
  }
  const classes = [...byClass].map(([name, c]) => ({
    name,
    lines: c.lines,
    stopped: c.stopped,
    recall: c.dangerous > 0 ? c.tp / c.dangerous : null,
    precision: c.stopped > 0 ? c.tp / c.stopped : null,
  }));
  return {
    classes,
    dangerous,
    stopped,
    truePositives: tp,
    recall: tp / dangerous,
    precision: stopped > 0 ? tp / stopped : 0,
    misses,
  };
}
