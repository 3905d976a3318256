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

/** The git subcommand and its arguments, and the directory it runs in (`-C`), past global options. */
export function gitCommand(
  argv: string[],
  ctx: RuleContext,
): { sub: string; args: string[]; dir: string | null } | null {
  let i = 1;
  let dir = ctx.cwd;
  while (i < argv.length && argv[i]!.startsWith("-")) {
    const a = argv[i]!;
    const value = argv[i + 1];
    if (a === "-C" && value !== undefined) dir = value.startsWith("/") ? value : dir && `${dir}/${value}`;
    i += GIT_VALUED.has(a) ? 2 : 1;
  }
  if (i >= argv.length) return null;
  return { sub: argv[i]!, args: argv.slice(i + 1), dir };
}
