/** What metrics receive and return. */
import type { ServerSpec } from "./mcp.ts";
import type { TokenCounter } from "./peers.ts";

export interface Ctx {
  smoke: boolean;
  /** ptyhub run from source, `bun src/cli.ts`, as shipped: sessions in its daemon. */
  ptyhub: ServerSpec;
  /** The same with PTYHUB_PERSISTENT=0: sessions inside the MCP server process. */
  ptyhubInproc: ServerSpec;
  /** The compiled binary, when it could be built, and how it was built. */
  binary: ServerSpec | null;
  binaryHow: string;
  /** The peer, when it could be installed. */
  ptyai: ServerSpec | null;
  /** o200k_base token counter, when gpt-tokenizer is available. */
  tokenizer: TokenCounter | null;
  log: (msg: string) => void;
}

/** One line of a metric's table: a subject (and mode) with its samples. */
export interface Row {
  subject: string;
  unit: "ms" | "MB" | "tokens" | "chars" | "%";
  samples: number[];
  /** Summary value when it is not the median of samples (e.g. a peak, a difference). */
  value?: number | null;
  /** Correct samples out of all (a result that carried the right completion signal and output). */
  correct?: { ok: number; of: number };
  /** Rows whose result is wrong by construction are reported but never count as a win. */
  incorrect?: boolean;
  note?: string;
  /** Compare this row's median against the row with this subject ("× ptyhub"). */
  baseline?: string;
}

export interface Table {
  title: string;
  rows: Row[];
  /** Which statistics to show: latency-like (median, p95) or single values. */
  kind: "latency" | "value";
  /** Heading of the ratio column (rows' `baseline`); "× ptyhub" unless the baseline is something else. */
  ratioHead?: string;
}

export interface Check {
  goal: string;
  actual: string;
  /** null: could not be judged (a subject was unavailable). */
  met: boolean | null;
}

export interface MetricResult {
  id: string;
  title: string;
  tables: Table[];
  checks: Check[];
  notes: string[];
  /** Harness failures: the metric could not be measured, or a ptyhub fact check failed. */
  errors: string[];
  /** Free-form markdown appended after the tables (fact lists, per-task details). */
  extra?: string;
}

export function emptyResult(id: string, title: string): MetricResult {
  return { id, title, tables: [], checks: [], notes: [], errors: [] };
}

/**
 * Runs a step of the peer (ptyai). Its failure is noted in the result and yields null: the peer
 * breaking is a finding about the peer, not a failure of the harness.
 */
export async function peer<T>(res: MetricResult, what: string, step: () => Promise<T>): Promise<T | null> {
  try {
    return await step();
  } catch (err) {
    res.notes.push(`ptyai ${what} failed: ${(err as Error).message.split("\n")[0]}`);
    return null;
  }
}
