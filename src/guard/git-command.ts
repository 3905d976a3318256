/**
 * A git command line read past git's global options (`git -C dir -c k=v push …`), and the branches
 * everyone shares, for the rules about git (rules.ts, rules-git.ts).
 */
import type { RuleContext } from "./rule-types.ts";

/** Shared branches: what a force push would rewrite for everyone. */
export const SHARED_BRANCH = new RegExp(
  "^(main|master|trunk|develop|development|dev|release([/-].*)?|releases/.*|" +
    "prod|production|staging|stable|hotfix/.*|gh-pages)$",
);
/** git's global options that take a value (`git -C dir push`). */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** git's own programs by their dashed names (`git-filter-repo`, `git-reset`): `git SUB` by another spelling. */
const DASHED = /^git-([a-z][a-z-]*)$/;

/**
 * The git subcommand and its arguments, and the directory it runs in (`-C`), past global options;
 * null when `argv` is not git. An alias given with `-c alias.NAME=…` on the same line is expanded.
 */
export function gitCommand(
  argv: string[],
  ctx: RuleContext,
): { sub: string; args: string[]; dir: string | null } | null {
  const dashed = DASHED.exec(argv[0] ?? "");
  if (dashed) return { sub: dashed[1]!, args: argv.slice(1), dir: ctx.cwd };
  if (argv[0] !== "git") return null;
  let i = 1;
  let dir = ctx.cwd;
  const aliases = new Map<string, string[]>();
  while (i < argv.length && argv[i]!.startsWith("-")) {
    const a = argv[i]!;
    const value = argv[i + 1];
    if (a === "-C" && value !== undefined) dir = value.startsWith("/") ? value : dir && `${dir}/${value}`;
    const alias = a === "-c" ? /^alias\.([^=]+)=([^!].*)$/s.exec(value ?? "") : null;
    if (alias) aliases.set(alias[1]!, alias[2]!.trim().split(/\s+/));
    i += GIT_VALUED.has(a) ? 2 : 1;
  }
  if (i >= argv.length) return null;
  const expanded = aliases.get(argv[i]!);
  if (expanded?.[0]) return { sub: expanded[0], args: [...expanded.slice(1), ...argv.slice(i + 1)], dir };
  return { sub: argv[i]!, args: argv.slice(i + 1), dir };
}
