/**
 * The `empty-system-file` rule: truncating a system or credential file to nothing (`truncate -s 0
 * /etc/passwd`, `: > /etc/shadow`, `cat /dev/null > ~/.ssh/authorized_keys`), and writing over,
 * moving away, linking over or deleting the files the system cannot run or log in without.
 */
import type { Rule, RuleContext } from "./rule-types.ts";
import type { Invocation } from "./unwrap.ts";
import { resolveWord } from "./judged-paths.ts";
import { options } from "./options.ts";

/** Directories whose files the system needs (logs and caches are left out: they are emptied routinely). */
const SYSTEM_FILE_DIRS = [
  "/etc",
  "/boot",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib64",
  "/root",
  "/var/lib",
  "/var/spool",
];
/** Files of the home that hold keys, logins and trust. */
const HOME_AUTH =
  /^\/(\.ssh\/.+|\.gnupg\/.+|\.aws\/.+|\.kube\/config|\.netrc|\.pgpass|\.git-credentials|\.docker\/config\.json)$/;

/** Files whose loss or overwrite locks everyone out or stops the boot: any write over them, not only emptying. */
const CRITICAL = /^\/etc\/(passwd|shadow|group|gshadow|sudoers|fstab|crypttab|pam\.d\/.+|ssh\/sshd_config)$/;
const HOME_CRITICAL = /^\/\.ssh\/(authorized_keys|id_[a-z0-9_]+)$/;

/** The critical file `word` names (resolved), or null. */
function criticalFile(word: string, ctx: RuleContext): string | null {
  const path = resolveWord(word, ctx);
  if (path === null) return null;
  if (CRITICAL.test(path)) return path;
  return path.startsWith(`${ctx.home}/`) && HOME_CRITICAL.test(path.slice(ctx.home.length)) ? path : null;
}

/**
 * Writes over or deletes of a critical file: `> /etc/passwd`, `tee /etc/shadow`, `cp x /etc/sudoers`,
 * `rm -f /etc/shadow`.
 */
function overwritesCritical(program: string, args: string[], inv: Invocation, ctx: RuleContext): string | null {
  const redirect = inv.source.redirects.find(
    (r) => (r.op === ">" || r.op === ">|" || r.op === "&>") && criticalFile(r.target, ctx),
  );
  if (redirect) return `the redirection overwrites ${criticalFile(redirect.target, ctx)}`;
  const o = options(args);
  let files: string[] = [];
  if (program === "tee" && !(o.short.has("a") || o.long.has("append"))) files = o.operands;
  else if (program === "cp" || program === "mv" || program === "install") files = o.operands.slice(-1);
  else if (program === "rm" || program === "shred" || program === "unlink") files = o.operands;
  const file = files.map((w) => criticalFile(w, ctx)).find((f) => f !== null);
  return file ? `${program} ${program === "rm" || program === "unlink" ? "deletes" : "overwrites"} ${file}` : null;
}

function systemFile(word: string, ctx: RuleContext): string | null {
  const path = resolveWord(word, ctx);
  if (path === null) return null;
  if (SYSTEM_FILE_DIRS.some((d) => path.startsWith(`${d}/`))) return path;
  if (path.startsWith(`${ctx.home}/`) && HOME_AUTH.test(path.slice(ctx.home.length))) return path;
  return null;
}

/** Commands that write nothing, so their `>` empties the file: `:`, `true`, `cat /dev/null`, `echo -n`, `printf ''`. */
function printsNothing(argv: string[]): boolean {
  const [program = "", ...args] = argv;
  if (program === "" || program === ":" || program === "true") return true;
  if (program === "cat") return args.length > 0 && args.every((a) => a === "/dev/null");
  if (program === "echo") return args.length === 1 && args[0] === "-n";
  if (program === "printf") return args.length === 1 && args[0] === "";
  return false;
}

/** `truncate -s 0`, `-s0`, `--size=0`, `-s -999999` (shrinking to nothing). */
function truncatesToZero(args: string[]): boolean {
  for (const [i, a] of args.entries()) {
    const size = a === "-s" || a === "--size" ? args[i + 1] : /^(-s|--size=)(.+)$/.exec(a)?.[2];
    if (size !== undefined && /^(0+[KMGkmg]?B?|-\d+.*)$/.test(size)) return true;
  }
  return false;
}

export const EMPTY_SYSTEM_FILE_RULE: Rule = {
  id: "empty-system-file",
  summary:
    "emptying a system or credential file (truncate -s 0, : >, cat /dev/null > /etc/… or ~/.ssh/…); " +
    "overwriting or deleting /etc/passwd, shadow, sudoers, fstab, authorized_keys",
  check({ inv }, ctx) {
    const [program = "", ...args] = inv.argv;
    const critical = overwritesCritical(program, args, inv, ctx);
    if (critical) return critical;
    if (program === "truncate" && truncatesToZero(args)) {
      const file = options(args)
        .operands.map((w) => systemFile(w, ctx))
        .find((f) => f !== null);
      if (file) return `truncate empties ${file}`;
    }
    if ((program === "cp" || program === "dd") && args.some((a) => /^(if=)?\/dev\/(null|zero)$/.test(a))) {
      const target = program === "dd" ? args.find((a) => a.startsWith("of="))?.slice(3) : args[args.length - 1];
      const file = target === undefined ? null : systemFile(target, ctx);
      if (file) return `${program} of /dev/null empties ${file}`;
    }
    if (!printsNothing(inv.argv)) return null;
    const emptied = inv.source.redirects.find((r) => (r.op === ">" || r.op === ">|") && systemFile(r.target, ctx));
    return emptied ? `the redirection empties ${systemFile(emptied.target, ctx)}` : null;
  },
};
