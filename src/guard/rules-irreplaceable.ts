/**
 * The `irreplaceable-delete` rule: deleting what a person cannot recreate, though it is neither
 * the root nor a system directory — keys and credentials (`~/.ssh`, `~/.gnupg`, `~/.aws`,
 * `~/.kube` …, or anything in them), a whole directory of the home (`~/important`; caches such as
 * `~/.cache` excepted), a git repository outside the session's working directory, and the user's
 * crontab (`crontab -r`).
 */
import { posix } from "node:path";
import type { Rule, RuleContext } from "./rule-types.ts";
import { resolveWord } from "./judged-paths.ts";
import { deletedTrees } from "./deleted-trees.ts";
import { options } from "./options.ts";

/** Directories of the home that hold keys, tokens and credentials: lost with no way to make them again. */
const SECRETS = [
  ...[".ssh", ".gnupg", ".aws", ".kube", ".azure", ".docker", ".password-store", ".pki", ".netrc"],
  ...[".config/gcloud", ".config/gh", ".local/share/keyrings", ".gitconfig", ".git-credentials", ".pgpass"],
];
/** Directories of the home that hold a person's own files: anything in them is theirs alone. */
const PERSONAL = ["Documents", "Desktop", "Pictures", "Photos", "Music", "Videos", "Movies", "Dropbox", "OneDrive"];
/** Directories of the home that only hold what tools download or build again. */
const RECREATABLE = new Set([
  ...[".cache", ".npm", ".yarn", ".pnpm-store", ".gradle", ".m2", ".nuget", ".cargo", ".rustup", ".bun", ".deno"],
  ...[".nvm", ".pyenv", ".rbenv", ".node-gyp", ".thumbnails", "tmp", ".tmp", ".local", ".vscode-server", "go"],
]);

/** Does `word` name a directory of keys or credentials (or something in one)? */
function isSecretDir(word: string, ctx: RuleContext): boolean {
  const path = resolveWord(word, ctx);
  if (path === null || !path.startsWith(`${ctx.home}/`)) return false;
  const inHome = path.slice(ctx.home.length + 1);
  return SECRETS.some((s) => inHome === s || inHome.startsWith(`${s}/`));
}

/** Why deleting the tree at `path` loses what cannot be recreated, or null. */
function irreplaceable(path: string, ctx: RuleContext, secretsOnly: boolean): string | null {
  const home = ctx.home;
  // The working directory and what is in it are the session's own workspace (`find . -delete`).
  const cwd = ctx.cwd;
  if (cwd !== null && path.startsWith(`${cwd}/`)) return null;
  if (path.startsWith(`${home}/`)) {
    const inHome = path.slice(home.length + 1);
    const secret = SECRETS.find((s) => inHome === s || inHome.startsWith(`${s}/`));
    if (secret) return `${path}, keys or credentials (~/${secret})`;
    if (secretsOnly) return null;
    const personal = PERSONAL.find((d) => inHome.startsWith(`${d}/`));
    if (personal) return `${path}, a person's own files (~/${personal})`;
    // A whole directory of the home is someone's own work, unless it is a cache.
    const fileName = /^[^.].*\.[A-Za-z0-9]{1,4}$/.test(inHome); // `~/notes.txt` is a file, not a tree
    if (!inHome.includes("/") && !RECREATABLE.has(inHome) && !fileName) return `${path}, a whole directory of the home`;
  }
  // A repository elsewhere: its unpushed commits, branches and stashes exist nowhere else.
  if (!secretsOnly && path !== cwd && ctx.isRepository?.(path) === true)
    return `${path}, a git repository outside the working directory`;
  return null;
}

export const IRREPLACEABLE_RULE: Rule = {
  id: "irreplaceable-delete",
  summary:
    "deleting what cannot be recreated: ~/.ssh, ~/.gnupg, ~/.aws, ~/.kube …, a whole directory of the home, " +
    "a git repository outside the working directory, crontab -r",
  check({ inv }, ctx) {
    const [program = "", ...args] = inv.argv;
    if (program === "crontab") {
      const o = options(args);
      return o.short.has("r") && !o.short.has("i") ? "crontab -r deletes every cron job, with no copy" : null;
    }
    for (const tree of deletedTrees(inv)) {
      // `find DIR -name … -delete` deletes what matches, not the tree; keys are judged all the same.
      if (tree.filtered && !isSecretDir(tree.word, ctx)) continue;
      const resolved = resolveWord(tree.word, ctx);
      if (resolved === null) continue;
      // `~/.ssh/*` deletes what is in ~/.ssh: judged as the directory.
      const path = resolved.replace(/\/(\*|\.\*)$/, "") || "/";
      // rsync --delete into a directory keeps what the source has: only keys are judged lost there.
      const why = irreplaceable(posix.normalize(path), ctx, tree.ontoRootOnly === true);
      if (why) return `${tree.how} ${why}`;
    }
    return null;
  },
};
