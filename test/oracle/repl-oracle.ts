/**
 * The REPL oracle's two sides (issue 36 item 3). The reference is the REPL itself reading its
 * inputs from a pipe (no terminal: no echo, no line editor, no prompt timing), with a separator
 * input between two inputs whose answer splits the stream into one answer per input. The other
 * side is the same REPL in a ptyhub session on a real PTY, one `term_send` per input: its
 * `output` (less the prompt it ends at) must be the reference's answer, and it must end at the
 * prompt (state `prompt`, via the prompt or the kernel's word), neither before the answer is
 * whole nor with a previous input's answer in it.
 */
import type { TestHost } from "../helpers/host.ts";
import { ctx } from "../helpers/host.ts";
import type { ReplName } from "./repl-corpus.ts";

/** Generous: under CPU hogs a slow input must end at its prompt, never at this bound. */
export const INPUT_WAIT_MS = 30_000;
/** Enough for the longest answer in the corpus (400 lines) to come back whole. */
const INPUT_MAX_TOKENS = 50_000;

export interface ReplSpec {
  name: ReplName;
  /** The REPL as a person runs it, in the PTY. */
  argv: string[];
  /** The same REPL reading a pipe: the reference. */
  oracleArgv: string[];
  /** Typed on both sides before the corpus; not counted. */
  setup: string[];
  /** An input whose whole answer is `separatorOutput`. */
  separatorInput: string;
  separatorOutput: string;
  /** The REPL's prompt at the end of ptyhub's answer (trailing blanks trimmed). */
  prompt: RegExp;
  /** What differs from run to run (a timing), replaced by "…" on both sides. */
  volatile?: RegExp;
  /** How the reference writes what the terminal shows otherwise (a file:line prefix on errors…). */
  normalizeOracle?(answer: string, input: string): string;
  env?: Record<string, string>;
  /** Added to `env` for the reference alone. */
  oracleEnv?: Record<string, string>;
}

/** Trailing blanks off every line, blank lines off the end. */
export function tidy(text: string): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n+$/, "");
}

/** Runs the inputs through the reference; one answer per input. */
export async function oracleAnswers(spec: ReplSpec, inputs: string[], cwd: string): Promise<string[]> {
  const all = [...spec.setup, ...inputs];
  const script = `${all.map((i) => `${i}\n${spec.separatorInput}\n`).join("")}`;
  const proc = Bun.spawn(["sh", "-c", 'exec "$@" 2>&1', "sh", ...spec.oracleArgv], {
    stdin: new Blob([script]),
    stdout: "pipe",
    stderr: "inherit",
    cwd,
    env: { ...process.env, ...spec.env, ...spec.oracleEnv },
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const parts = out.split(spec.separatorOutput).map((p, k) => (k === 0 ? p : p.replace(/^\n/, "")));
  if (parts.length !== all.length + 1) {
    throw new Error(
      `${spec.name} oracle: ${parts.length - 1} separators for ${all.length} inputs:\n${out.slice(-2000)}`,
    );
  }
  return parts
    .slice(spec.setup.length, all.length)
    .map((a, k) => steady(spec, tidy(spec.normalizeOracle ? spec.normalizeOracle(a, inputs[k]!) : a)));
}

/** The text with what differs from run to run (spec.volatile) replaced. */
export function steady(spec: ReplSpec, text: string): string {
  return spec.volatile ? text.replace(spec.volatile, "…") : text;
}

export type MismatchKind = "state" | "early" | "extra-before" | "extra-after" | "text";

export interface InputVerdict {
  input: string;
  expected: string;
  got: string;
  state: string;
  via: string;
  kind: MismatchKind | null;
}

/** ptyhub's answer less the prompt it ended at (a prompt after output with no final newline too). */
export function answerOf(output: string, prompt: RegExp): string {
  const text = tidy(output);
  const lines = text.split("\n");
  const last = lines.pop() ?? "";
  const m = prompt.exec(last);
  if (m && m.index + m[0].length === last.length) lines.push(last.slice(0, m.index));
  else lines.push(last);
  return tidy(lines.join("\n"));
}

export function judge(input: string, expected: string, got: string, state: string, via: string): InputVerdict {
  let kind: MismatchKind | null = null;
  if (state !== "prompt" || (via !== "prompt" && via !== "tty")) kind = "state";
  else if (got === expected) kind = null;
  else if (expected.startsWith(got)) kind = "early";
  else if (got.endsWith(expected)) kind = "extra-before";
  else if (got.startsWith(expected)) kind = "extra-after";
  else kind = "text";
  return { input, expected, got, state, via, kind };
}

/** Opens the REPL in a session, types the setup, then each input; one verdict per input. */
export async function ptyhubAnswers(
  host: TestHost,
  session: string,
  spec: ReplSpec,
  inputs: string[],
  expected: string[],
  cwd: string,
): Promise<InputVerdict[]> {
  await host.open({ name: session, command: spec.argv[0]!, args: spec.argv.slice(1), env: spec.env, cwd }, ctx);
  for (const input of spec.setup) {
    await host.send({ session, text: input, wait_ms: INPUT_WAIT_MS, max_tokens: INPUT_MAX_TOKENS }, ctx);
  }
  const verdicts: InputVerdict[] = [];
  for (const [k, input] of inputs.entries()) {
    const r = await host.send({ session, text: input, wait_ms: INPUT_WAIT_MS, max_tokens: INPUT_MAX_TOKENS }, ctx);
    verdicts.push(judge(input, expected[k]!, steady(spec, answerOf(r.output, spec.prompt)), r.state, r.via));
  }
  await host.close({ session }, ctx);
  return verdicts;
}

/** Counts by kind, for the log and the README. */
export function tally(verdicts: InputVerdict[]): Record<string, number> {
  const counts: Record<string, number> = { inputs: verdicts.length, matched: 0 };
  for (const v of verdicts) {
    const key = v.kind ?? "matched";
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
