/**
 * Fixtures for the token tasks, made fresh in the run's temporary root: a git repository of 200
 * commits (deterministic: fixed author, dates and messages, so the same hashes every run) and a
 * directory holding the output-producing scripts.
 */
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { benchRoot } from "./env.ts";
import { BENCH } from "./peers.ts";

export const COMMITS = 200;
export const AUTHOR = "Dana Bench <dana@example.com>";
const TYPES = ["feat", "fix", "refactor", "docs", "test", "perf", "chore"];
const SCOPES = ["parser", "render", "cache", "cli", "lexer", "io"];
const VERBS = ["handle", "simplify", "speed up", "document", "cover", "rename", "guard against"];
const THINGS = [
  "empty input",
  "wide characters",
  "nested blocks",
  "stale entries",
  "long lines",
  "trailing blanks",
  "CRLF endings",
  "unicode escapes",
];

export function commitSubject(i: number): string {
  if (i === 1) return "Initial commit: project skeleton";
  return `${TYPES[i % TYPES.length]}(${SCOPES[i % SCOPES.length]}): ${VERBS[i % VERBS.length]} ${THINGS[i % THINGS.length]} (#${1000 + i})`;
}

export interface Fixtures {
  repo: string;
  head: string;
  scripts: string;
}

function git(args: string[], cwd: string, env: Record<string, string>, stdin?: string): string {
  const r = Bun.spawnSync(["git", ...args], {
    cwd,
    env,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

export function makeFixtures(): Fixtures {
  const dir = join(benchRoot(), "fixtures");
  const repo = join(dir, "repo");
  const scripts = join(dir, "work");
  mkdirSync(repo, { recursive: true });
  mkdirSync(scripts, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: "1",
    LANG: "C.UTF-8",
  };
  git(["init", "-q", "-b", "main"], repo, env);
  // One fast-import stream instead of 200 `git commit` processes.
  let stream = "";
  const [name, email] = [AUTHOR.replace(/ <.*$/, ""), AUTHOR.replace(/^.*<(.*)>$/, "$1")];
  for (let i = 1; i <= COMMITS; i++) {
    const when = 1_700_000_000 + i * 3600;
    const msg =
      i % 5 === 0
        ? `${commitSubject(i)}\n\nExplain change ${i}: why it was needed and what it touches.\n`
        : `${commitSubject(i)}\n`;
    const content = `change ${i}\n`;
    stream += `commit refs/heads/main\nmark :${i}\nauthor ${name} <${email}> ${when} +0000\ncommitter ${name} <${email}> ${when} +0000\n`;
    stream += `data ${Buffer.byteLength(msg)}\n${msg}`;
    stream += `M 644 inline src/file${i % 10}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  }
  git(["fast-import", "--quiet"], repo, env, stream);
  git(["checkout", "-q", "-f", "main"], repo, env);
  const head = git(["rev-parse", "HEAD"], repo, env).trim();
  for (const f of readdirSync(join(BENCH, "fixtures")))
    if (f.endsWith(".py")) copyFileSync(join(BENCH, "fixtures", f), join(scripts, f));
  return { repo, head, scripts };
}
