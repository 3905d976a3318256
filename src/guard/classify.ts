/**
 * The guard's verdict on one typed line: the rules that match it and why. A shell line is parsed
 * (parse.ts), its wrappers peeled (unwrap.ts) and every program it runs judged by the enabled
 * rules; a line typed into a database client is judged as SQL.
 */
import { parseShellLine } from "./parse.ts";
import { invocations } from "./unwrap.ts";
import { BUILTIN_RULES, type Rule, type RuleContext } from "./rules.ts";
import { destructiveSql } from "./sql.ts";
import { resolveWord } from "./paths.ts";

export interface Finding {
  rule: string;
  reason: string;
}

/** A rule added in the settings: a regex over a program's words, joined by single spaces. */
export interface PatternRule {
  id: string;
  pattern: RegExp;
  reason: string;
}

export interface RuleSet {
  builtin: Rule[];
  patterns: PatternRule[];
  /** Ids of the built-in rules that do not run on their own (fork-bomb, sql-destroy for typed SQL). */
  disabled: ReadonlySet<string>;
}

export const FORK_BOMB_RULE = "fork-bomb";
export const SQL_RULE = "sql-destroy";

export function ruleSet(opts: { disable?: string[]; patterns?: PatternRule[] } = {}): RuleSet {
  const disabled = new Set(opts.disable ?? []);
  return { builtin: BUILTIN_RULES.filter((r) => !disabled.has(r.id)), patterns: opts.patterns ?? [], disabled };
}

/** Every id a setting may name: the built-in rules' and the line-level ones. */
export function builtinRuleIds(): string[] {
  return [...BUILTIN_RULES.map((r) => r.id), FORK_BOMB_RULE];
}

export function classifyShellLine(line: string, ctx: RuleContext, rules: RuleSet): Finding[] {
  const parsed = parseShellLine(line);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (rule: string, reason: string): void => {
    const key = `${rule}\0${reason}`;
    if (!seen.has(key)) findings.push({ rule, reason });
    seen.add(key);
  };
  const all = invocations(parsed);
  // `cd dir && …` moves the rest of the line: relative paths and git checks follow it.
  const lineCtx: RuleContext = { ...ctx };
  for (const input of all) {
    const argv = input.inv.argv;
    if (argv.length === 0) continue;
    if (argv[0] === "cd") {
      lineCtx.cwd = resolveWord(argv[1] ?? "~", lineCtx);
      continue;
    }
    // GNU tools print their help and exit when given --help or --version anywhere.
    const onlyHelp = argv.includes("--help") || argv.includes("--version");
    for (const rule of onlyHelp ? [] : rules.builtin) {
      const reason = rule.check(input, lineCtx);
      if (reason) add(rule.id, reason);
    }
    if (rules.patterns.length > 0) {
      const words = input.inv.argv.join(" ");
      for (const p of rules.patterns) if (p.pattern.test(words)) add(p.id, p.reason);
    }
  }
  if (!rules.disabled.has(FORK_BOMB_RULE)) {
    // A function that starts two copies of itself per call multiplies until the machine stalls.
    for (const name of parsed.functions) {
      const calls = all.filter((x) => x.inv.argv[0] === name);
      const piped = calls.some((x) => x.pipeline.filter((p) => p.argv[0] === name).length >= 2);
      if (piped || calls.length >= 3) {
        add(FORK_BOMB_RULE, `fork bomb: the function ${name} keeps starting copies of itself`);
      }
    }
  }
  return findings;
}

/** A line typed into a database client's prompt. */
export function classifySqlLine(line: string, rules: RuleSet): Finding[] {
  if (rules.disabled.has(SQL_RULE)) return [];
  const why = destructiveSql(line);
  return why ? [{ rule: SQL_RULE, reason: why }] : [];
}
