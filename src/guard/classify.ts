/**
 * The guard's verdict on one typed line: the rules that match it and why. A shell line is parsed
 * (parse.ts), its wrappers peeled (unwrap.ts) and every program it runs judged by the enabled
 * rules; a line typed into a database client is judged as SQL.
 */
import { parseShellLine } from "./parse.ts";
import { calledBodies } from "./function-calls.ts";
import { invocations } from "./unwrap.ts";
import { BUILTIN_RULES, type Rule, type RuleContext } from "./rules.ts";
import { destructiveSql } from "./sql.ts";
import { resolveWord } from "./judged-paths.ts";
import { downloadedThenRun } from "./download-run.ts";
import { GUARD_RULE_IDS, type GuardRuleId } from "../config/guard-rule-ids.ts";
import { withDefaultValues, withKnownSubstitutions } from "./substitution.ts";
import { DATASTORE_RULE, storeWipe } from "./rules-datastore.ts";
import { unsetVariableRoots } from "./unset-variables.ts";
import { promptLines } from "./deferred-lines.ts";
import { isDryRun } from "./dry-runs.ts";

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

export const FORK_BOMB_RULE: GuardRuleId = "fork-bomb";
export const SQL_RULE: GuardRuleId = "sql-destroy";
const PIPE_TO_SHELL_RULE: GuardRuleId = "pipe-to-shell";
const ROOT_RULE: GuardRuleId = "rm-recursive-root";

export function ruleSet(opts: { disable?: string[]; patterns?: PatternRule[] } = {}): RuleSet {
  const disabled = new Set(opts.disable ?? []);
  return { builtin: BUILTIN_RULES.filter((r) => !disabled.has(r.id)), patterns: opts.patterns ?? [], disabled };
}

/** Every id a setting may name: the built-in rules' and the line-level ones (one list, in src/config). */
export function builtinRuleIds(): string[] {
  return [...GUARD_RULE_IDS];
}

/** Records a finding: the rule's id and why. */
type Add = (rule: string, reason: string) => void;

export function classifyShellLine(line: string, ctx: RuleContext, rules: RuleSet): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (rule: string, reason: string): void => {
    const key = `${rule}\0${reason}`;
    if (!seen.has(key)) findings.push({ rule, reason });
    seen.add(key);
  };
  judgeLine(line, ctx, rules, add, 0, new Set());
  return findings;
}

/** Scripts inside scripts (`ssh host 'for d in …'`, `bash -c 'd=/; rm -rf $d'`) are expanded to this depth. */
const MAX_SCRIPT_DEPTH = 3;

/**
 * Judges `line` and the versions of it the shell would run: variables, functions and substitutions
 * it gives put in. The scripts it hands to shells, hosts or containers get the same, in turn.
 */
function judgeLine(
  line: string,
  ctx: RuleContext,
  rules: RuleSet,
  add: Add,
  depth: number,
  outerAssigned: ReadonlySet<string>,
): void {
  const parsed = parseShellLine(line);
  // `rm -rf "$DIR/"` with DIR set nowhere on the line (nor in the line around this script).
  const assigned = new Set([...outerAssigned, ...parsed.assignments.map((a) => a.name.replace(/\[@\]$/, ""))]);
  if (rules.builtin.some((r) => r.id === ROOT_RULE)) {
    for (const why of unsetVariableRoots(invocations(parsed), assigned)) add(ROOT_RULE, why);
  }
  const scripts = new Set<string>();
  const judge = (p: ReturnType<typeof parseShellLine>): void => {
    for (const text of judgeParsed(p, ctx, rules, add)) scripts.add(text);
  };
  judge(parsed);
  // A shell loop that never ends and starts a background job each time: `while true; do sleep 1 & done`.
  if (!rules.disabled.has(FORK_BOMB_RULE) && ENDLESS_BACKGROUND_LOOP.test(line)) {
    add(FORK_BOMB_RULE, "fork bomb: an endless loop starts a background job on each pass");
  }
  // `PROMPT_COMMAND='…'`, `PS1='$(…)'`: what the shell runs before each prompt from now on.
  for (const text of promptLines(parsed.assignments)) judge(parseShellLine(text));
  // A function called with arguments (`f() { rm -rf "$1"; }; f /`): its body with them put in.
  for (const body of calledBodies(line, parsed)) {
    const called = parseShellLine(body);
    judge(called);
    // `f() { local d=$1; rm -rf "$d"; }; f /`: the body's own variables, set from the arguments.
    for (const expanded of expandAssignments(body, called.assignments)) judge(parseShellLine(expanded));
  }
  // Variables the line sets (`d=/; rm -rf $d`, `c=rm; $c -rf /`, `for d in /etc /usr`) are expanded
  // as the shell will, and the line judged again with each value they take.
  for (const expanded of expandAssignments(line, parsed.assignments)) {
    judge(parseShellLine(expanded));
  }
  // Substitutions whose output the line gives (`$(echo rm) -rf /`): judged as what they print;
  // `${X:-/}` as its default, which the shell uses when X is unset.
  const defaulted = withDefaultValues(line);
  if (defaulted !== null) {
    const again = parseShellLine(defaulted);
    judge(again);
    for (const expanded of expandAssignments(defaulted, again.assignments)) judge(parseShellLine(expanded));
  }
  const substituted = withKnownSubstitutions(defaulted ?? line);
  if (substituted !== null) {
    const again = parseShellLine(substituted);
    judge(again);
    for (const expanded of expandAssignments(substituted, again.assignments)) {
      judge(parseShellLine(expanded));
    }
  }
  if (depth >= MAX_SCRIPT_DEPTH) return;
  // The nested script itself was judged with its line; its expansions are judged here.
  for (const text of scripts) if (text !== line) judgeLine(text, ctx, rules, add, depth + 1, assigned);
}

/**
 * Where the line uses variable `name`: `$name`, `${name}`; a list (`@`, `a[@]`, also `*`) also
 * quoted, `"$@"`/`"${a[@]}"`, whose words stay words, so the quotes go with the use.
 */
function variableUse(name: string): RegExp {
  // `${a[1]}`, `${m[cmd]}`: one element, named with its braces.
  const element = /^(\w+)\[([^\]@*]+)\]$/.exec(name);
  if (element) return new RegExp(`\\$\\{${element[1]}\\[["']?${element[2]!.replace(/\W/g, "\\$&")}["']?\\]\\}`, "g");
  const array = /^(\w+)\[@\]$/.exec(name);
  const list = array !== null || name === "@";
  const pattern = array ? `${array[1]}\\[[@*]\\]` : name === "@" ? "[@*]" : name;
  // `$name` needs its end: `$d` is not `$dir`; `${…}` brings its own.
  const bare = array ? `\\$\\{${pattern}\\}` : `\\$(\\{${pattern}\\}|${pattern}(?![A-Za-z0-9_]))`;
  return new RegExp(list ? `"${bare}"|${bare}` : bare, "g");
}

/** A line whose variables take many values is judged with at most this many of them. */
const MAX_EXPANSIONS = 32;

/**
 * `line` with `$NAME`/`${NAME}` replaced by the values the line itself gives NAME: one version
 * with each variable's last value, then one per other value a variable takes (a `for` list).
 */
function expandAssignments(line: string, assignments: { name: string; value: string }[]): string[] {
  if (assignments.length === 0) return [];
  const values = new Map<string, string[]>();
  for (const { name, value } of assignments) {
    // `f=/; g=$f`: a value that uses a variable set before it takes that variable's value.
    let v = value;
    for (const [earlier, vs] of values) v = v.replace(variableUse(earlier), () => vs[vs.length - 1]!);
    values.set(name, [...(values.get(name) ?? []), v]);
  }
  const substitute = (choice: Map<string, string>): string => {
    // `${!ref}` is the variable whose name ref holds: `x=HOME; rm -rf ${!x}` is `${HOME}`.
    let out = line.replace(/\$\{!([A-Za-z_]\w*)\}/g, (m, ref: string) => {
      const target = choice.get(ref);
      return target !== undefined && /^[A-Za-z_]\w*$/.test(target) ? `\${${target}}` : m;
    });
    for (const [name, value] of choice) out = out.replace(variableUse(name), () => value);
    return out;
  };
  const last = new Map([...values].map(([name, vs]) => [name, vs[vs.length - 1]!]));
  const versions = new Set([substitute(last)]);
  for (const [name, vs] of values) {
    for (const v of vs) {
      if (versions.size >= MAX_EXPANSIONS) break;
      versions.add(substitute(new Map([...last, [name, v]])));
    }
  }
  versions.delete(line);
  return [...versions];
}

function judgeParsed(parsed: ReturnType<typeof parseShellLine>, ctx: RuleContext, rules: RuleSet, add: Add): string[] {
  const all = invocations(parsed);
  // `cd dir && …` moves the rest of the line: relative paths and git checks follow it.
  const lineCtx: RuleContext = { ...ctx };
  for (const input of all) {
    const argv = input.inv.argv;
    if (DIRECTORY_CHANGERS.has(argv[0] ?? "")) {
      lineCtx.cwd = newDirectory(argv, lineCtx);
      continue;
    }
    // An invocation without a program (`exec 3>/dev/vda`, `{ …; } > /dev/vda`) still redirects.
    // `--help`, `--version` and dry runs (`--dry-run`, `apt-get -s`, `git push -n`) change nothing.
    for (const rule of asksForHelp(argv) || isDryRun(argv) ? [] : rules.builtin) {
      const reason = rule.check(input, lineCtx);
      if (reason) add(rule.id, reason);
    }
    if (rules.patterns.length > 0 && argv.length > 0) {
      const words = input.inv.argv.join(" ");
      for (const p of rules.patterns) if (p.pattern.test(words)) add(p.id, p.reason);
    }
  }
  const pipeRule = rules.builtin.some((r) => r.id === PIPE_TO_SHELL_RULE);
  const downloaded = pipeRule ? downloadedThenRun(all, lineCtx) : null;
  if (downloaded) add(PIPE_TO_SHELL_RULE, downloaded);
  if (!rules.disabled.has(FORK_BOMB_RULE)) {
    // A function that starts two copies of itself per call multiplies until the machine stalls.
    // Its body calls it at least twice (`:|:`), and something outside the body calls it.
    const selfCalls = [parsed.selfCalls, ...all.flatMap((x) => (x.inv.script ? [x.inv.script.selfCalls] : []))];
    for (const counts of selfCalls) {
      for (const [name, inBody] of Object.entries(counts)) {
        const calls = all.filter((x) => x.inv.argv[0] === name).length;
        if (inBody >= 2 && calls > inBody) {
          add(FORK_BOMB_RULE, `fork bomb: the function ${name} keeps starting copies of itself`);
        }
      }
    }
    // The same in a one-line program: `perl -e 'fork while fork'`, `python -c 'while 1: os.fork()'`.
    const forking = all.find((x) => x.inv.argv.slice(1).some((a) => FORK_LOOP.test(a)));
    if (forking) add(FORK_BOMB_RULE, `fork bomb: ${forking.inv.argv[0]} forks in an endless loop`);
  }
  // The scripts handed on (to `sh -c`, a host, a container), for judgeLine to expand in turn.
  return all.flatMap((x) => (x.inv.scriptText === undefined ? [] : [x.inv.scriptText]));
}

/** Program text that forks forever: `fork while fork`, `while(1) fork`, `while True: os.fork()`, `for(;;) fork()`. */
const FORK_LOOP = new RegExp(
  [
    // `fork while fork`, `fork until 0`
    String.raw`\bfork\b[\s()]*\b(while|until)\b[\s(]*(\d|true|fork)`,
    // `while(1) fork(`, `while True: os.fork(`, `for(;;) fork(`, perl's `while(1){fork}`
    String.raw`\b(while\s*[(]?\s*(1|true|True)\s*[)]?\s*[:{]?|for\s*\(\s*;\s*;\s*\))\s*[\w.]*fork\s*(\(|[;}])`,
    // ruby's `loop { fork }`, `loop do fork end`
    String.raw`\bloop\s*(\{|do)\s*[\w.]*fork\b`,
    // python's endless comprehensions: `[os.fork() for _ in iter(int, 1)]`, `… in itertools.count()]`
    String.raw`fork\s*\(\s*\)\s*for\s+\w+\s+in\s+(iter\s*\(|(itertools\.)?(count|repeat|cycle)\s*\()`,
    // node's `while(true) require('child_process').fork(__filename)`: the script starts copies of itself
    String.raw`\bwhile\s*\(\s*(1|true)\s*\)\s*[^;]*\.fork\s*\(`,
  ].join("|"),
);

/** `while true; do CMD & done` (`:`, `[ 1 ]`, `until false`): a new process each pass, none waited for. */
const ENDLESS_BACKGROUND_LOOP = /\b(while\s+(true|:|\[\s*1\s*\])|until\s+false)\s*;?\s*do\s+[^;]*[^&]&\s*;?\s*done\b/;

/** Builtins that move the shell: what follows on the line runs in the new directory. */
const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd", "chdir"]);

/** Where `cd`/`pushd`/`popd` leave the shell; null when it cannot be known (`cd -`, `popd`, `cd $X`). */
function newDirectory(argv: string[], ctx: RuleContext): string | null {
  if (argv[0] === "popd") return null;
  // Options (-P, -L, -e, -@) and `--` come first; the operand follows.
  let i = 1;
  while (i < argv.length && /^-[LPe@]+$/.test(argv[i]!)) i++;
  if (argv[i] === "--") i++;
  const target = argv[i];
  if (target === undefined) return argv[0] === "pushd" ? null : resolveWord("~", ctx);
  if (target === "-" || /^[+-]\d+$/.test(target)) return null;
  return resolveWord(target, ctx);
}

/**
 * GNU tools print their help or version and exit when given --help or --version as an option,
 * that is, before `--`: after it, it is a file name (`rm -rf -- / --help` removes /).
 */
function asksForHelp(argv: string[]): boolean {
  for (const a of argv.slice(1)) {
    if (a === "--") return false;
    if (a === "--help" || a === "--version" || a === "-help") return true; // -help: Go tools (terraform, helm)
  }
  return false;
}

/** A line typed into a database client's prompt. */
export function classifySqlLine(line: string, rules: RuleSet): Finding[] {
  const findings: Finding[] = [];
  const why = rules.disabled.has(SQL_RULE) ? null : destructiveSql(line);
  if (why) findings.push({ rule: SQL_RULE, reason: why });
  // The same prompts take a store's commands (redis-cli, mongosh): FLUSHALL, db.dropDatabase().
  const wipe = rules.disabled.has(DATASTORE_RULE.id) ? null : storeWipe(line);
  if (wipe) findings.push({ rule: DATASTORE_RULE.id, reason: wipe });
  return findings;
}
