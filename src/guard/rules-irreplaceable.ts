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
import { lostRecord } from "./lost-records.ts";
import { programText } from "./one-liners.ts";

/** Directories of the home that hold keys, tokens and credentials: lost with no way to make them again. */
const SECRETS = [
  ...[".bitcoin", ".ethereum", ".electrum", ".monero", ".vault-token", ".config/sops", ".local/share/password-store"],
  ...[".ssh", ".gnupg", ".aws", ".kube", ".azure", ".docker", ".password-store", ".pki", ".netrc"],
  ...[".config/gcloud", ".config/gh", ".local/share/keyrings", ".gitconfig", ".git-credentials", ".pgpass"],
  ...[".npmrc", ".pypirc", ".terraform.d", ".s3cfg", ".config/hub", ".config/op", ".1password", ".my.cnf"],
];
/** Directories of the home that hold a person's own files: anything in them is theirs alone. */
const PERSONAL = ["Documents", "Desktop", "Pictures", "Photos", "Music", "Videos", "Movies", "Dropbox", "OneDrive"];
/** Directories of the home that only hold what tools download or build again. */
const RECREATABLE = new Set([
  ...[".cache", ".npm", ".yarn", ".pnpm-store", ".gradle", ".m2", ".nuget", ".cargo", ".rustup", ".bun", ".deno"],
  ...[".nvm", ".pyenv", ".rbenv", ".node-gyp", ".thumbnails", "tmp", ".tmp", ".vscode-server", "go"],
  ...[".local/bin", ".local/lib", ".local/state", ".local/share/virtualenvs", ".local/share/pnpm", ".sdkman"],
  ...[".vscode/extensions", ".cursor/extensions", ".local/share/containers/cache"],
]);
/** Directories of the home holding programs' own data and settings: anything in them (the trash excepted). */
const APP_DATA = [".config", ".local/share", ".mozilla", ".thunderbird"];
const TRASH = ".local/share/Trash";
/** Build outputs, environments and caches by name: made again by the build, wherever they lie. */
const BUILD_OUTPUT = new Set([
  ...["node_modules", "dist", "build", "target", "out", ".venv", "venv", "__pycache__", ".pytest_cache", ".next"],
  ...[".nuxt", ".cache", "cache", "coverage", "tmp", ".tmp", ".tox", ".mypy_cache", ".turbo", ".gradle", "obj"],
]);
/** Directories of the home whose entries were downloaded: each can be fetched again. */
const FETCHED_AGAIN = new Set(["Downloads"]);
/** A mounted disk's root or a folder on it: /media/USER/DISK[/X], /run/media/USER/DISK[/X], /Volumes/DISK/X. */
const MOUNTED_DISK = /^\/(run\/)?media\/[^/]+\/[^/]+(\/[^/]+)?$|^\/(Volumes|mnt)\/[^/]+\/[^/]+$/;
/** Key files that ssh writes again by itself: not credentials. */
const REGENERATED = /^\.ssh\/known_hosts(\.old)?$/;

/** A home directory a path lies in — the session's, /root, /home/USER (or /home/* in a glob) — and the rest. */
function inSomeHome(path: string, ctx: RuleContext): string | null {
  if (path.startsWith(`${ctx.home}/`)) return path.slice(ctx.home.length + 1);
  const other = /^(\/root|\/home\/[^/]+)\/(.+)$/.exec(path);
  return other ? other[2]! : null;
}

/** Does `word` name a directory of keys or credentials (or something in one), in anyone's home? */
function isSecretDir(word: string, ctx: RuleContext): boolean {
  const path = resolveWord(word, ctx);
  const inHome = path === null ? null : inSomeHome(path, ctx);
  return (
    inHome !== null && !REGENERATED.test(inHome) && SECRETS.some((s) => inHome === s || inHome.startsWith(`${s}/`))
  );
}

/** Is `word` a person's own folder of the home (`~/Pictures`) or in one? */
function inPersonalFolder(word: string, ctx: RuleContext): boolean {
  const path = resolveWord(word, ctx);
  const inHome = path?.startsWith(`${ctx.home}/`) ? path.slice(ctx.home.length + 1) : null;
  return inHome !== null && PERSONAL.some((d) => inHome === d || inHome.startsWith(`${d}/`));
}

/** Is `dir` the session's own workspace — below the home, not the home or above it (`cd ~` makes it home)? */
function inWorkspace(path: string, ctx: RuleContext): boolean {
  const cwd = ctx.cwd;
  if (cwd === null || !path.startsWith(`${cwd}/`)) return false;
  return cwd !== ctx.home && !`${ctx.home}/`.startsWith(`${cwd}/`);
}

/** Why deleting the tree at `path` loses what cannot be recreated, or null. */
function irreplaceable(path: string, ctx: RuleContext, secretsOnly: boolean): string | null {
  const inHome = inSomeHome(path, ctx);
  const regenerated = inHome !== null && REGENERATED.test(inHome);
  const secret =
    inHome === null || regenerated ? undefined : SECRETS.find((s) => inHome === s || inHome.startsWith(`${s}/`));
  if (secret) return `${path}, keys or credentials (~/${secret})`;
  // rsync --delete onto a person's own folder (`~/Documents/`) keeps only what the source has.
  const folder = inHome === null ? undefined : PERSONAL.find((d) => inHome === d);
  if (folder && path.startsWith(`${ctx.home}/`)) return `${path}, a person's own files (~/${folder})`;
  if (secretsOnly) return null;
  // A repository's .git is all of its history, its branches and stashes: in the workspace too.
  if (posix.basename(path) === ".git") return `${path}, a git repository's whole history`;
  // A bare repository (`/srv/git/app.git`), or the objects and refs inside a .git.
  if (/.\.git$/.test(posix.basename(path)) && !/^\/(var\/)?tmp\//.test(path)) return `${path}, a bare git repository`;
  if (/(^|\/)\.git\/(objects|refs|logs)(\/|$)/.test(path)) return `${path}, a git repository's history`;
  // A disk mounted for a person (`/media/dev/Backup`, `/run/media/dev/usb/photos`): what is on it.
  if (MOUNTED_DISK.test(path)) return `${path}, the files of a mounted disk`;
  // The working directory and what is in it are the session's own workspace (`find . -delete`).
  if (inWorkspace(path, ctx)) return null;
  if (inHome !== null && path.startsWith(`${ctx.home}/`)) {
    // What is in the trash was already thrown away: emptying it is the point.
    if (inHome === TRASH || inHome.startsWith(`${TRASH}/`)) return null;
    const parts = inHome.split("/");
    // A build output or cache anywhere (`~/Documents/site/node_modules`, `~/.config/app/cache`) is made again.
    if (parts.some((p) => BUILD_OUTPUT.has(p))) return null;
    const personal = [...PERSONAL, ...APP_DATA].find((d) => inHome.startsWith(`${d}/`));
    if (personal) return `${path}, a person's own files or settings (~/${personal})`;
    const last = parts[parts.length - 1]!;
    const fileName = /^[^.].*\.[A-Za-z0-9]{1,4}$/.test(last); // `~/notes.txt` is a file, not a tree
    // What is in ~/Downloads came from somewhere and can be fetched again; the whole folder is judged.
    if (parts.length > 1 && FETCHED_AGAIN.has(parts[0]!)) return null;
    // GOPATH's src holds a person's own checkouts; the rest of ~/go is the module cache and binaries.
    const ownCode = /^go\/src(\/|$)/.test(inHome);
    const rebuilt =
      !ownCode &&
      ([...RECREATABLE].some((r) => inHome === r || inHome.startsWith(`${r}/`)) ||
        parts.some((p) => BUILD_OUTPUT.has(p)));
    // A directory of the home, at any depth, is someone's own work, unless a build or a cache makes it again.
    if (!rebuilt && !fileName)
      return `${path}, ${parts.length === 1 ? "a whole directory" : "a directory"} of the home`;
  }
  // A repository elsewhere: its unpushed commits, branches and stashes exist nowhere else.
  if (!secretsOnly && path !== ctx.cwd && ctx.isRepository?.(path) === true)
    return `${path}, a git repository outside the working directory`;
  return null;
}

/** Tools that delete or overwrite the files they are given, one by one (no `-r` needed for a key). */
const FILE_DESTROYERS = new Set(["rm", "unlink", "shred", "srm", "wipe"]);
/** Names of private keys and keystores. */
const KEY_FILE =
  /^(.*wallet\.dat|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(key|pem|p12|pfx|jks|keystore|kdbx|gpg|asc)|.+_rsa)$/;
/** gpg's options that delete secret keys from the keyring. */
const GPG_DELETES_SECRET = /^--delete-secret-(and-public-)?keys?$/;

/** `rm ~/.aws/credentials`, `shred ~/.gnupg/private-keys-v1.d/*`, `gpg --delete-secret-keys`: keys gone. */
function secretFileLost(program: string, args: string[], ctx: RuleContext): string | null {
  if (program === "gpg" || program === "gpg2") {
    return args.some((a) => GPG_DELETES_SECRET.test(a)) ? `${program} deletes secret keys from the keyring` : null;
  }
  if (!FILE_DESTROYERS.has(program)) return null;
  const operands = options(args).operands;
  const file = operands.find((w) => isSecretDir(w, ctx));
  if (file) return `${program} destroys ${file}, keys or credentials`;
  // A key file by its name (`server.key`, `id_ed25519`, `prod.pem`): shredded anywhere, or removed
  // from the home outside the workspace, it exists nowhere else.
  const key = operands.find((w) => {
    const path = resolveWord(w, ctx);
    if (path === null || !KEY_FILE.test(posix.basename(path))) return false;
    if (program !== "rm" && program !== "unlink") return true;
    const inHome = inSomeHome(path, ctx);
    const fetched = inHome !== null && FETCHED_AGAIN.has(inHome.split("/")[0]!);
    return inHome !== null && !fetched && !inWorkspace(path, ctx);
  });
  return key ? `${program} destroys ${key}, a private key` : null;
}

/** Where what is moved is thrown away: the temporary directories, or nothing at all. */
const DISCARDED = /^\/(tmp|var\/tmp|dev\/shm|dev\/null)(\/|$)/;

/** `mv ~/.ssh /tmp/`, `mv ~/.gnupg /dev/null`: keys moved where they are thrown away. */
function secretsMovedAway(program: string, args: string[], ctx: RuleContext): string | null {
  if (program !== "mv") return null;
  const o = options(args);
  const target = resolveWord(o.operands[o.operands.length - 1] ?? "", ctx);
  if (target === null || !DISCARDED.test(target)) return null;
  const isGit = (w: string) => posix.basename(resolveWord(w, ctx) ?? "") === ".git";
  const moved = o.operands.slice(0, -1).find((w) => isSecretDir(w, ctx) || inPersonalFolder(w, ctx) || isGit(w));
  return moved ? `mv moves ${moved} to ${target}, where it is thrown away` : null;
}

/** A chmod mode that lets the group or others read or write (`777`, `644`, `go+r`, `a+rw`). */
const OPENING_MODE = /^(0?[0-7]{0,2}[0-7][0-7]?[4-7]|0?[0-7]?[0-7][4-7][0-7]|[ugoa]*[go][ugoa]*[+=][rwx]*[rw][rwx]*)$/;

/** `chmod 777 ~/.ssh/id_rsa`, `chmod -R 755 ~/.gnupg`: keys readable by others (ssh then refuses them). */
function secretsOpened(program: string, args: string[], ctx: RuleContext): string | null {
  if (program !== "chmod") return null;
  const o = options(args);
  const [mode = "", ...files] = o.operands;
  if (!OPENING_MODE.test(mode)) return null;
  const recursive = o.short.has("R") || o.long.has("recursive");
  const opened = files.find((w) => {
    const path = resolveWord(w, ctx);
    const key = path !== null && KEY_FILE.test(posix.basename(path)) && !path.endsWith(".pub");
    return isSecretDir(w, ctx) && (key || recursive || /credentials$/.test(path ?? ""));
  });
  return opened ? `chmod ${mode} opens ${opened}, keys or credentials, to others` : null;
}

/** `find . -name .git -exec rm -rf {} +`: every repository's history under the start path. */
function repositoriesFound(program: string, args: string[]): string | null {
  if (program !== "find") return null;
  const gitNamed = args.some((a, i) => /^-i?name$/.test(args[i - 1] ?? "") && /^\.git\/?$/.test(a));
  const deletes = args.includes("-delete") || args.some((a, i) => /^-exec/.test(args[i - 1] ?? "") && /rm$/.test(a));
  return gitNamed && deletes ? "find deletes every .git: the repositories' whole history" : null;
}

/** String literals of a one-line program, `~/` resolved. */
const CODE_LITERAL = /'([^']*)'|"([^"]*)"/g;
/** Calls that delete files in interpreters' standard libraries. */
const CODE_DELETES =
  /\b(os\.remove|os\.unlink|unlink|rmtree|rmSync|unlinkSync|rm_rf|rm_r|rm_f|File\.delete|remove_tree|rmtree)\b/;

/** `python3 -c "os.remove(os.path.expanduser('~/.ssh/id_rsa'))"`, `perl -e 'unlink glob("~/.ssh/*")'`. */
function codeDeletesSecret(argv: string[], ctx: RuleContext): string | null {
  const code = programText(argv);
  if (code === null || !CODE_DELETES.test(code)) return null;
  for (const m of code.matchAll(CODE_LITERAL)) {
    const literal = m[1] ?? m[2] ?? "";
    if (/^(~|\/)/.test(literal) && isSecretDir(literal, ctx))
      return `${argv[0]} deletes ${literal}, keys or credentials`;
  }
  return null;
}

export const IRREPLACEABLE_RULE: Rule = {
  id: "irreplaceable-delete",
  summary:
    "deleting what cannot be recreated: ~/.ssh, ~/.gnupg, ~/.aws, ~/.kube … (any file in them, in any home), " +
    "gpg secret keys, ~/.config, a directory of the home, a .git, a repository outside the working directory, " +
    "crontab -r",
  check(input, ctx) {
    const { inv } = input;
    const [program = "", ...args] = inv.argv;
    if (program === "crontab" || program === "fcrontab") {
      const o = options(args);
      // With -i crontab asks first, but it asks the agent, who answers: judged as -r.
      return o.short.has("r") ? `${program} -r deletes every cron job, with no copy` : null;
    }
    const keys =
      secretFileLost(program, args, ctx) ??
      lostRecord(input, ctx) ??
      secretsMovedAway(program, args, ctx) ??
      secretsOpened(program, args, ctx) ??
      repositoriesFound(program, args) ??
      codeDeletesSecret(inv.argv, ctx);
    if (keys) return keys;
    for (const tree of deletedTrees(inv)) {
      // `find DIR -name … -delete` deletes what matches, not the tree; keys are judged all the same.
      if (tree.filtered && !isSecretDir(tree.word, ctx) && !inPersonalFolder(tree.word, ctx)) continue;
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
