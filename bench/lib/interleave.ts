/**
 * The A/B loop every timed metric shares: subjects run in rotating order each iteration, so no
 * subject always goes first; a peer (ptyai) that throws is dropped with a note, while ptyhub
 * throwing is a harness error.
 */
import type { Timed } from "./shells.ts";
import { rotate } from "./stats.ts";
import type { Row } from "./types.ts";

export interface TimedSubject {
  row: Row;
  run: () => Promise<Timed>;
}

export interface InterleaveOptions {
  warmup: number;
  iterations: number;
  /** Where notes about dropped peers go. */
  notes: string[];
  /** Called for each sample whose result was wrong (after it is counted). */
  onIncorrect: (row: Row, t: Timed) => void;
}

export async function runInterleaved(subjects: readonly TimedSubject[], opts: InterleaveOptions): Promise<void> {
  const failed = new Set<TimedSubject>();
  const runOnce = async (s: TimedSubject): Promise<Timed | null> => {
    if (failed.has(s)) return null;
    try {
      return await s.run();
    } catch (err) {
      if (!s.row.subject.startsWith("ptyai")) throw err;
      failed.add(s);
      opts.notes.push(`${s.row.subject} failed and was dropped: ${(err as Error).message.split("\n")[0]}`);
      return null;
    }
  };
  for (let i = 0; i < opts.warmup; i++) for (const s of subjects) await runOnce(s);
  for (let i = 0; i < opts.iterations; i++) {
    for (const s of rotate(subjects, i)) {
      const t = await runOnce(s);
      if (!t) continue;
      s.row.samples.push(t.ms);
      s.row.correct!.of++;
      if (t.ok) s.row.correct!.ok++;
      else opts.onIncorrect(s.row, t);
    }
  }
}
