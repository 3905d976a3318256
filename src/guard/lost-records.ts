/**
 * Records a person cannot make again that are not whole trees, for the irreplaceable-delete rule:
 * shell histories, Terraform state, backups and snapshots (borg, restic, snapper, timeshift, Time
 * Machine, btrfs/zfs, Windows shadow copies), a private key generated over, a keychain, a password
 * store's folder, and files in the folders of a person's own documents.
 */
import { posix } from "node:path";
import type { RuleContext, RuleInput } from "./rule-types.ts";
import { resolveWord } from "./judged-paths.ts";
import { options } from "./options.ts";
import { printsNothing, truncatesToZero } from "./rules-system.ts";
import { pipelineText } from "./piped-text.ts";

/** Shell and client histories: a record of what was done, kept nowhere else. */
const HISTORY_FILE = new RegExp(
  "^(\\.(bash|zsh|sh|ksh|python|psql|mysql|sqlite|node_repl|irb|rediscli|mongosh|lesshst)_history|" +
    "\\.histfile|fish_history)$",
);
/** A glob over histories: `rm ~/.*_history`. */
const HISTORY_GLOB = /[*?].*history|history.*[*?]/;
/** Documents, notes, photos and recordings by their extension: a person's own work, often the only copy. */
const OWN_WORK =
  /\.(md|txt|org|norg|docx?|odt|rtf|pdf|xlsx?|ods|pptx?|pages|numbers|jpe?g|png|heic|raw|cr2|nef|mov|mp4)$/i;
/** The parts of the home that hold what tools make or fetch again. */
const MADE_AGAIN = /^(\.|Downloads\/|tmp\/|go\/pkg\/|snap\/)|\/(node_modules|dist|build|target|\.cache|cache|tmp)\//;
/** A shell's startup files: the person's own settings, deleted or emptied. */
const STARTUP_FILE = /^\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|kshrc|cshrc|tcshrc)$/;
/** Terraform's state: the only record of which real resources the configuration manages. */
const TF_STATE = /(^terraform\.tfstate|\.tfstate(\.backup)?$|^terraform\.tfstate\.d$)/;
/** Folders of the home that hold a person's own documents, photos and media. */
const PERSONAL_FOLDER = /^(Documents|Desktop|Pictures|Photos|Music|Videos|Movies|Dropbox|OneDrive)\//;
/** Backups and dumps by name (`backup.sql`, `db-backup-2024.sql.gz`, `backups/`): often the only copy. */
const BACKUP_NAME = new RegExp(
  String.raw`^backups?$|backup[^/]*\.(sql|dump|gz|tgz|tar|zip|7z|zst|xz|bz2|archive|bak|db|img)$|` +
    String.raw`^(pg_?|db[-_]?|mysql)?dump[^/]*\.(sql|dump|archive)$`,
  "i",
);
/** A wallet's file or its recovery words, by name. */
const WALLET_NAME = /wallet|seed[-_ ]?phrase|mnemonic|recovery[-_ ]?(words|phrase)/i;
/** A repository's own records, deleted one by one: where the branch points, the packed refs, objects. */
const GIT_RECORD = /(^|\/)\.git\/(HEAD|packed-refs|objects\/.+|refs\/.+)$/;
/** Tools that delete the files they are given. */
const REMOVERS = /^(rm|unlink|shred|srm|wipe)$/;

/** What a file word names, by its base name and its place below the home (null when unknown). */
function fileOf(word: string, ctx: RuleContext): { base: string; inHome: string | null } | null {
  const path = resolveWord(word, ctx);
  if (path === null) return null;
  const inHome = path.startsWith(`${ctx.home}/`) ? path.slice(ctx.home.length + 1) : null;
  return { base: posix.basename(path), inHome };
}

/** Why losing the file `word` loses a record nobody can make again, or null. */
function recordLost(word: string, ctx: RuleContext, personal: boolean): string | null {
  const file = fileOf(word, ctx);
  if (file === null) return null;
  if (HISTORY_FILE.test(file.base) || HISTORY_GLOB.test(file.base)) return `${word}, a shell or client history`;
  if (file.inHome !== null && STARTUP_FILE.test(file.inHome)) return `${word}, the shell's startup settings`;
  if (TF_STATE.test(file.base)) return `${word}, Terraform's record of the real resources it manages`;
  if (BACKUP_NAME.test(file.base)) return `${word}, a backup`;
  // What lies in a backups directory (`/var/backups/*`, `/backup/x.tar.gz`) is a backup too.
  const segments = (resolveWord(word, ctx) ?? "").split("/").slice(0, -1);
  if (segments.some((p) => /^backups?$/i.test(p))) return `${word}, a backup`;
  if (WALLET_NAME.test(file.base)) return `${word}, a wallet or its recovery words`;
  if (GIT_RECORD.test(resolveWord(word, ctx) ?? "")) return `${word}, a git repository's records`;
  if (personal && file.inHome !== null && PERSONAL_FOLDER.test(file.inHome)) return `${word}, a person's own file`;
  // `rm ~/notes.md`, `> ~/journal.txt`: a document of the home outside the session's workspace.
  const path = resolveWord(word, ctx) ?? "";
  const inWorkspace = ctx.cwd !== null && ctx.cwd !== ctx.home && path.startsWith(`${ctx.cwd}/`);
  if (personal && file.inHome !== null && OWN_WORK.test(file.base) && !MADE_AGAIN.test(file.inHome) && !inWorkspace) {
    return `${word}, a person's own document`;
  }
  return null;
}

/** `rm ~/.bash_history`, `truncate -s 0 ~/.zsh_history`, `> ~/.bash_history`, `rm terraform.tfstate`. */
function recordsDeleted({ inv }: RuleInput, ctx: RuleContext): string | null {
  const [program = "", ...args] = inv.argv;
  const emptied = printsNothing(inv.argv) ? inv.source.redirects.filter((r) => r.op === ">" || r.op === ">|") : [];
  for (const r of emptied) {
    const why = recordLost(r.target, ctx, true);
    if (why) return `the redirection empties ${why}`;
  }
  // `history -c`: the session's history cleared (and with `history -w`, the file written empty).
  if (program === "history" && args.some((a) => /^-[a-z]*c/.test(a))) return "history -c clears the shell history";
  const o = options(args);
  // `ln -sf /dev/null ~/.bash_history`: the history replaced by a link to nothing.
  if (program === "ln" && (o.short.has("f") || o.long.has("force")) && o.operands.length === 2) {
    const why = recordLost(o.operands[1]!, ctx, true);
    if (why) return `ln -sf replaces ${why}`;
  }
  // `cp template.docx ~/Documents/thesis.docx`, `mv draft.md ~/notes.md`, `tee ~/notes.md`: written over.
  const target =
    /^(cp|mv|install)$/.test(program) && o.operands.length >= 2
      ? o.operands[o.operands.length - 1]
      : program === "tee" && !(o.short.has("a") || o.long.has("append"))
        ? o.operands[0]
        : undefined;
  // A copy being made (`cp ~/.bash_history ~/history-backup.txt`) is a new file, not one written over.
  const newCopy = target !== undefined && /backup|bak|copy|\.orig/i.test(fileOf(target, ctx)?.base ?? "");
  const over = target === undefined || !OWN_WORK.test(target) || newCopy ? null : recordLost(target, ctx, true);
  if (over) return `${program} writes over ${over}`;
  const files = REMOVERS.test(program) || (program === "truncate" && truncatesToZero(args)) ? o.operands : [];
  // A person's files one by one; their folders deleted whole are judged as trees (build outputs spared).
  const personal = !(o.short.has("r") || o.short.has("R") || o.long.has("recursive"));
  for (const w of files) {
    const why = recordLost(w, ctx, personal);
    if (why) return `${program} destroys ${why}`;
  }
  return null;
}

/** Backup and snapshot tools, and the words that delete what they keep. */
const BACKUP_DELETES: Record<string, RegExp> = {
  borg: /^delete\b/,
  borgmatic: /^delete\b/,
  snapper: /(^| )(delete|rm|remove)\b/,
  timeshift: /--delete(-all)?\b/,
  tmutil: /^(delete|deletelocalsnapshots|deleteinprogress)\b/,
  vssadmin: /^delete shadows\b/i,
  wbadmin: /^delete (catalog|backup|systemstatebackup)\b/i,
};

/** `borg delete repo`, `snapper delete 1-100`, `btrfs subvolume delete /snapshots/*`, `restic forget --keep-last 0`. */
function backupsDeleted(program: string, args: string[]): string | null {
  const words = args.filter((a) => !a.startsWith("-")).join(" ");
  const pattern = BACKUP_DELETES[program.replace(/\.exe$/i, "")];
  if (pattern && (pattern.test(words) || pattern.test(args.join(" "))))
    return `${program} deletes backups or snapshots`;
  if (program === "btrfs" && /^(subvolume|sub|su) (delete|del)\b/.test(words) && /snap/i.test(words)) {
    return "btrfs subvolume delete deletes snapshots";
  }
  if (
    program === "zfs" &&
    /^destroy\b/.test(words) &&
    (words.includes("@") || args.some((a) => /^-[a-zA-Z]*[rR]/.test(a)))
  ) {
    return "zfs destroy deletes snapshots or whole datasets";
  }
  // restic forget keeps what its --keep-* options say: keeping none of them forgets every snapshot.
  const keeps = args.flatMap((a, i) =>
    /^--keep-/.test(a) ? [a.includes("=") ? a.split("=")[1]! : (args[i + 1] ?? "")] : [],
  );
  if (
    program === "restic" &&
    /(^| )forget\b/.test(words) &&
    keeps.length > 0 &&
    keeps.every((k) => /^0+[a-z]*$/.test(k))
  ) {
    return "restic forget keeps no snapshot";
  }
  return null;
}

/** The names ssh looks for its own keys under: generated over, the old key is gone. */
const STANDARD_KEY = /\/\.ssh\/id_((rsa|dsa|ecdsa|ed25519)(_sk)?)$/;

/** Does what is piped or given to the command answer `y`: `yes |`, `echo y |`, `<<< y`? */
function answersYes({ inv, pipeline, index }: RuleInput): boolean {
  const feeder = pipeline[index - 1]?.argv;
  const said = (argv: string[] | undefined) =>
    argv !== undefined &&
    (argv[0] === "yes" || (/^(echo|printf)$/.test(argv[0] ?? "") && /^y/i.test(argv[argv.length - 1] ?? "")));
  return said(feeder) || /^y/i.test(inv.source.stdin ?? "");
}

/** Private keys, keychains and password stores replaced or deleted by their own tools. */
function keysReplaced(input: RuleInput, ctx: RuleContext): string | null {
  const [program = "", ...args] = input.inv.argv;
  // `yes | ssh-keygen -f ~/.ssh/id_rsa …`: the "Overwrite?" question answered, the old key gone.
  // `ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519`: over the standard key it asks, and the agent answers.
  const standard = args.find((_a, i) => args[i - 1] === "-f");
  const standardPath = standard === undefined ? null : resolveWord(standard, ctx);
  const generates = !args.some((a) => /^-[ylRFpcBLeDi]$/.test(a));
  if (
    program === "ssh-keygen" &&
    generates &&
    standardPath === `${ctx.home}/.ssh/id_${STANDARD_KEY.exec(standardPath ?? "")?.[1]}`
  ) {
    return `ssh-keygen writes over ${standard}, the standard key, if it exists`;
  }
  if (program === "ssh-keygen" && answersYes(input)) {
    const key = args.find((_a, i) => args[i - 1] === "-f");
    const readOnly = args.some((a) => /^-[ylRFpcBLe]$/.test(a));
    const path = key === undefined ? null : resolveWord(key, ctx);
    if (!readOnly && (path === null || path.startsWith(`${ctx.home}/.ssh/`) || key === undefined)) {
      return "ssh-keygen writes over an existing private key";
    }
  }
  if (program === "security" && /^delete-keychain$/.test(args[0] ?? ""))
    return "security delete-keychain deletes a keychain";
  // `pass rm -r work`: a folder of the password store.
  const recursive = options(args).short.has("r") || options(args).long.has("recursive");
  if ((program === "pass" || program === "gopass") && /^(rm|remove|delete)$/.test(args[0] ?? "") && recursive) {
    return `${program} rm -r deletes a folder of stored passwords`;
  }
  return null;
}

/** A line that ends a shell at once: `exit`, `logout`, `exec false`, `kill -9 $$`. */
const ENDS_SHELL = /^\s*(exit\b|logout\b|exec\s+(\/\S*\/)?(false|true|nologin)\b|kill\s+-(9|KILL)\s+\$\$)/m;

/** `echo exit >> ~/.bashrc`: every new shell (every login, every ssh session) ends before its prompt. */
function startupLocksOut({ inv, pipeline, index }: RuleInput, ctx: RuleContext): string | null {
  const [program = "", ...args] = inv.argv;
  const startup = (w: string) => {
    const inHome = fileOf(w, ctx)?.inHome;
    return inHome !== null && inHome !== undefined && STARTUP_FILE.test(inHome);
  };
  const redirected = inv.source.redirects.some((r) => /^>>?$/.test(r.op) && startup(r.target));
  const teed = program === "tee" && options(args).operands.some(startup);
  if (!redirected && !teed) return null;
  const stages = pipeline.slice(0, teed ? index : index + 1).map((i) => i.source);
  const text = teed ? (inv.source.stdin ?? pipelineText(stages)) : pipelineText(stages);
  return text !== null && ENDS_SHELL.test(text) ? "the startup file ends every new shell at once: no login" : null;
}

/** The record, backup or key the invocation destroys, or null. */
export function lostRecord(input: RuleInput, ctx: RuleContext): string | null {
  const [program = "", ...args] = input.inv.argv;
  return (
    recordsDeleted(input, ctx) ??
    backupsDeleted(program, args) ??
    keysReplaced(input, ctx) ??
    startupLocksOut(input, ctx)
  );
}
