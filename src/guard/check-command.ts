/**
 * `ptyhub guard check [--cwd DIR] [--json] LINE…`: what the guard would do with each line, without
 * a session — for users trying their own rules, and for running a corpus of lines. The lines are
 * judged as term_exec judges a local session's command: the settings' rules, the given cwd (git's
 * answers read there), this user's home directory.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { statSync } from "node:fs";
import { processConfig } from "../config/config.ts";
import { classifyShellLine, type Finding } from "./classify.ts";
import { settingsRuleSet } from "./guard.ts";
import { gitBranch, gitStatus, isRepository } from "./git.ts";
import type { RuleContext } from "./rules.ts";
import { EXIT_USAGE, parseVerbArgs, UsageError } from "../util/verb-args.ts";
import { AppError } from "../api/errors.ts";

const USAGE = `usage: ptyhub guard check [--cwd DIR] [--json] [LINE…]

Says whether the guard would stop each LINE (a shell command line, as term_exec would type it),
by which rule, and why. With no LINE, or LINE "-", the lines are read from standard input, one
per line. The settings' rules apply (config.json "guard": disabled and added rules).

  --cwd DIR   judge relative paths and git checks in DIR (default: the current directory; a DIR
              that does not exist here is judged as if it did, git's answers unknown)
  --json      one JSON object per line: {"line", "stopped", "rules": [{"id", "reason"}]}

Exit status: 0 when no line would be stopped, 1 when any would, 2 when the lines could not be
judged (a usage error, an invalid configuration, any other error).
`;

export const EXIT_STOPPED = 1;
/**
 * The lines could not be judged. Not 1: a script reading the status as "would be stopped" must
 * not take a broken configuration for a verdict.
 */
export const EXIT_NOT_JUDGED = 2;

export interface CheckIo {
  out(text: string): void;
  err(text: string): void;
  /** All of standard input (only read when no LINE is given, or "-"). */
  stdin(): Promise<string>;
}

const CHECK_OPTIONS = {
  cwd: { type: "string" },
  json: { type: "boolean", default: false },
} as const;
/** Any number of lines; none means standard input. */
const CHECK_LINES = { min: 0, max: Number.POSITIVE_INFINITY, name: "LINE" };

const processIo: CheckIo = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  stdin: () => Bun.stdin.text(),
};

/** `ptyhub guard SUBCOMMAND …`: only `check` exists. */
export async function runGuardCommand(args: string[], io: CheckIo = processIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "check") return runGuardCheck(rest, io);
  if (sub === "--help" || sub === "-h" || sub === "help") {
    io.out(USAGE);
    return 0;
  }
  io.err(`ptyhub guard: ${sub === undefined ? "missing subcommand" : `unknown subcommand '${sub}'`}\n\n${USAGE}`);
  return EXIT_USAGE;
}

async function runGuardCheck(args: string[], io: CheckIo): Promise<number> {
  let parsed: ReturnType<typeof parseVerbArgs<typeof CHECK_OPTIONS>>;
  try {
    parsed = parseVerbArgs(
      { verb: "guard check", usage: USAGE, options: CHECK_OPTIONS, positionals: CHECK_LINES },
      args,
      io.out,
    );
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(err.render());
    return EXIT_USAGE;
  }
  if (parsed === null) return 0;
  try {
    return await judgeLines(parsed.values, parsed.positionals, io);
  } catch (err) {
    const reason = err instanceof AppError ? `${err.message}${err.hint ? `\nhint: ${err.hint}` : ""}` : errorText(err);
    io.err(`ptyhub guard check: ${reason}\n`);
    return EXIT_NOT_JUDGED;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function judgeLines(
  values: { cwd?: string; json?: boolean },
  positionals: string[],
  io: CheckIo,
): Promise<number> {
  const cwd = resolve(values.cwd ?? process.cwd());
  // A directory that is not here (another machine's path, a corpus's) is judged as if it were.
  if (!isDirectory(cwd)) io.err(`ptyhub guard check: note: ${cwd} is not a directory here; judged as if it were\n`);
  const lines = [];
  for (const p of positionals.length === 0 ? ["-"] : positionals) {
    if (p === "-") lines.push(...(await io.stdin()).split("\n").filter((l) => l.trim() !== ""));
    else lines.push(p);
  }
  const settings = processConfig().guard;
  const rules = settingsRuleSet(settings);
  const ctx: RuleContext = { cwd, home: homedir(), gitStatus, gitBranch, isRepository };
  let anyStopped = false;
  for (const line of lines) {
    const findings: Finding[] = settings.enabled ? classifyShellLine(line, ctx, rules) : [];
    const stopped = findings.length > 0;
    anyStopped ||= stopped;
    if (values.json) {
      const rulesOut = findings.map((f) => ({ id: f.rule, reason: f.reason }));
      io.out(`${JSON.stringify({ line, stopped, rules: rulesOut })}\n`);
    } else if (stopped) {
      io.out(`stopped  ${line}\n${findings.map((f) => `  ${f.rule}: ${f.reason}\n`).join("")}`);
    } else io.out(`passes   ${line}\n`);
  }
  if (!settings.enabled) io.err("ptyhub guard check: the guard is turned off in the settings (guard.enabled false)\n");
  return anyStopped ? EXIT_STOPPED : 0;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
