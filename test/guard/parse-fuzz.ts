/**
 * Run by parse-fuzz.test.ts in a child process (a parser that loops forever would block the test
 * runner's own timers): parses seeded random lines made of the characters the shell grammar cares
 * about, and prints how many it parsed.
 */
import { classifyShellLine, ruleSet } from "../../src/guard/classify.ts";
import { Prng } from "../chaos/prng.ts";

/** Shell syntax, densely: quotes, substitutions, groups, operators, here-docs, escapes. */
const PIECES = [
  "`",
  "$(",
  "$((",
  "${",
  ")",
  "(",
  "{",
  "}",
  "'",
  '"',
  "\\",
  "<<",
  "<<-",
  "<(",
  ">",
  "|",
  "&",
  ";",
  "\n",
];
const WORDS = [" ", "rm", "-rf", "/", "a", "EOF", "sudo", "bash", "-c", "git", "push", "-f", "=", "#", "\t", "*"];

const seed = Number(process.argv[2] ?? 1);
const lines = Number(process.argv[3] ?? 2000);
const rng = new Prng(seed);
const rules = ruleSet();
const ctx = { cwd: "/tmp/w", home: "/home/u", gitStatus: () => null, gitBranch: () => null };
for (let n = 0; n < lines; n++) {
  let line = "";
  const len = rng.int(1, 40);
  for (let k = 0; k < len; k++) line += rng.chance(0.6) ? rng.pick(PIECES) : rng.pick(WORDS);
  classifyShellLine(line, ctx, rules);
}
console.log(`parsed ${lines}`);
