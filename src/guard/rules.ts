/**
 * The guard's built-in rules. Each judges one program invocation (wrappers already peeled, see
 * unwrap.ts) and says why it is destructive, or returns null. README.md lists them by id; a
 * setting turns any of them off or adds pattern rules (config.ts `guard`).
 */
import type { Invocation } from "./unwrap.ts";
import { baseName } from "./unwrap.ts";
import { isDevicePath, preciousPath, type PathContext } from "./paths.ts";
import { DATABASE_CLIENTS, destructiveSql } from "./sql.ts";

export interface RuleContext extends PathContext {
  /**
   * `git status --porcelain` in `dir`: "" when clean, null when it cannot be known (not a local
   * session, git missing, not a repository).
   */
  gitStatus(dir: string): string | null;
  /** The checked-out branch in `dir`, null when unknown. */
  gitBranch(dir: string): string | null;
}

export interface RuleInput {
  inv: Invocation;
  /** The pipeline the invocation stands in, and its place in it. */
  pipeline: Invocation[];
  index: number;
}

export interface Rule {
  id: string;
  /** One line for the README and the human's confirmation. */
  summary: string;
  check(input: RuleInput, ctx: RuleContext): string | null;
}

/** Short options of `args` (`-rf` → r, f) and long options, up to `--`. */
function options(args: string[]): { short: Set<string>; long: Set<string>; operands: string[] } {
  const short = new Set<string>();
  const long = new Set<string>();
  const operands: string[] = [];
  let ended = false;
  for (const a of args) {
    if (ended || a === "-" || !a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    if (a === "--") ended = true;
    else if (a.startsWith("--")) long.add(a.slice(2).split("=")[0]!);
    else for (const ch of a.slice(1)) short.add(ch);
  }
  return { short, long, operands };
}

function firstPrecious(words: string[], ctx: RuleContext): string | null {
  for (const w of words) {
    const why = preciousPath(w, ctx);
    if (why) return why;
  }
  return null;
}

/** Shared branches: what a force push would rewrite for everyone. */
const SHARED_BRANCH = new RegExp(
  "^(main|master|trunk|develop|development|dev|release([/-].*)?|releases/.*|" +
    "prod|production|staging|stable|hotfix/.*|gh-pages)$",
);
/** git's global options that take a value (`git -C dir push`). */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** The git subcommand and its arguments, and the directory it runs in (`-C`), past global options. */
function gitCommand(argv: string[], ctx: RuleContext): { sub: string; args: string[]; dir: string | null } | null {
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

const SHELL_INTERPRETERS = new Set([
  ...["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"],
  ...["python", "python3", "perl", "ruby", "node", "bun", "deno", "php", "pwsh"],
]);
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "iwr"]);
const isDownloader = (program: string) => DOWNLOADERS.has(baseName(program));
/** systemctl verbs that stop or restart the machine (or drop it to a rescue shell). */
const SYSTEMCTL_STOPS = /^(reboot|poweroff|halt|kexec|soft-reboot|suspend|hibernate|emergency|rescue)$/;

/** Does the interpreter read its program from standard input (no script file, or `-`/`-s`)? */
function readsProgramFromStdin(inv: Invocation): boolean {
  const args = inv.argv.slice(1);
  if (args.includes("-c") || args.includes("-e") || args.includes("--eval")) return false;
  const operands = args.filter((a) => !a.startsWith("-") || a === "-");
  return operands.length === 0 || operands[0] === "-" || args.includes("-s");
}

export const BUILTIN_RULES: Rule[] = [
  {
    id: "rm-recursive-root",
    summary: "recursive delete (rm -r, find -delete) of /, the home directory, a top-level or system directory",
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program === "rm") {
        const o = options(args);
        if (!(o.short.has("r") || o.short.has("R") || o.long.has("recursive"))) return null;
        if (o.long.has("no-preserve-root")) return "rm --no-preserve-root removes /";
        const what = firstPrecious(o.operands, ctx);
        return what ? `rm -r deletes ${what}` : null;
      }
      const execRemoves = (a: string, i: number) =>
        (a === "-exec" || a === "-execdir") && /^(rm|shred)$/.test(baseName(args[i + 1] ?? ""));
      if (program === "find" && (args.includes("-delete") || args.some(execRemoves))) {
        const starts = args.slice(
          0,
          Math.max(
            0,
            args.findIndex((a) => a.startsWith("-") || a === "(" || a === "!"),
          ),
        );
        const what = firstPrecious(starts.length > 0 ? starts : ["."], ctx);
        return what ? `find … -delete removes files throughout ${what}` : null;
      }
      return null;
    },
  },
  {
    id: "mkfs",
    summary: "making a file system or swap (mkfs, mkfs.*, mke2fs, mkswap): erases the device",
    check({ inv }) {
      const p = inv.argv[0] ?? "";
      if (!/^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|newfs(_.+)?)$/.test(p)) return null;
      if (inv.argv.slice(1).some((a) => a === "--help" || a === "-V" || a === "--version")) return null;
      return `${p} erases whatever is on the target device`;
    },
  },
  {
    id: "dd-device",
    summary: "writing raw data to a device: dd of=/dev/…, or a redirection into a disk device",
    check({ inv }) {
      if (inv.argv[0] === "dd") {
        const of = inv.argv.find((a) => a.startsWith("of="))?.slice(3);
        if (of && isDevicePath(of)) return `dd overwrites the device ${of}`;
      }
      const r = inv.source.redirects.find((x) => /^(>|>>|>\||&>|&>>|<>)$/.test(x.op) && isDevicePath(x.target));
      return r ? `the output is written over the device ${r.target}` : null;
    },
  },
  {
    id: "wipe-device",
    summary: "shred or wipefs of a device",
    check({ inv }) {
      const [program, ...args] = inv.argv;
      if (program !== "shred" && program !== "wipefs" && program !== "blkdiscard") return null;
      const device = args.find((a) => isDevicePath(a));
      return device ? `${program} destroys the data on ${device}` : null;
    },
  },
  {
    id: "chmod-recursive-root",
    summary: "recursive chmod/chown/chgrp of /, the home directory or a system directory",
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program !== "chmod" && program !== "chown" && program !== "chgrp") return null;
      const o = options(args.filter((a) => !/^[-+=][rwxXst]+$/.test(a)));
      if (!(o.short.has("R") || o.long.has("recursive"))) return null;
      const what = firstPrecious(o.operands.slice(1), ctx);
      return what ? `${program} -R changes the permissions or owner of everything in ${what}` : null;
    },
  },
  {
    id: "git-force-push",
    summary: "git push --force (or +refspec) to a shared branch (main, master, develop, release…, production…)",
    check({ inv }, ctx) {
      if (inv.argv[0] !== "git") return null;
      const git = gitCommand(inv.argv, ctx);
      if (!git || git.sub !== "push") return null;
      const o = options(git.args);
      const force = o.short.has("f") || o.long.has("force") || o.operands.some((r) => r.startsWith("+"));
      if (!force) return null;
      if (o.long.has("delete") || o.short.has("d")) return null;
      const refspecs = o.operands.slice(1);
      // A refspec's destination (`src:dst`, `+dst`); without one, the checked-out branch.
      const destination = (r: string) => (r.replace(/^\+/, "").split(":").pop() ?? "").replace(/^refs\/heads\//, "");
      const targets = refspecs.length > 0 ? refspecs.map(destination) : [git.dir ? ctx.gitBranch(git.dir) : null];
      for (const t of targets) {
        if (t === null) return "git push --force to the current branch, which could not be checked (it may be shared)";
        if (
          SHARED_BRANCH.test(t) ||
          (t === "HEAD" && git.dir && SHARED_BRANCH.test(ctx.gitBranch(git.dir) ?? "main"))
        ) {
          return `git push --force rewrites the shared branch ${t} for everyone`;
        }
      }
      return null;
    },
  },
  {
    id: "git-discard-work",
    summary: "git reset --hard, git clean -f, git checkout/restore of everything, with uncommitted changes",
    check({ inv }, ctx) {
      if (inv.argv[0] !== "git") return null;
      const git = gitCommand(inv.argv, ctx);
      if (!git) return null;
      const o = options(git.args);
      const dryRun = o.short.has("n") || o.long.has("dry-run");
      const wholeTree = o.operands.some((a) => a === "." || a === ":/");
      let what: string;
      if (git.sub === "reset" && o.long.has("hard")) what = "git reset --hard throws away";
      else if (git.sub === "clean" && (o.short.has("f") || o.long.has("force")) && !dryRun) {
        what = "git clean -f deletes";
      } else if ((git.sub === "checkout" || git.sub === "restore") && wholeTree) {
        what = `git ${git.sub} of the whole tree throws away`;
      } else return null;
      const status = git.dir === null ? null : ctx.gitStatus(git.dir);
      if (status === "") return null;
      if (status === null) return `${what} uncommitted work, and whether there is any could not be checked`;
      const count = status.split("\n").filter(Boolean).length;
      return `${what} uncommitted work: ${count} changed or untracked path${count === 1 ? "" : "s"} in ${git.dir}`;
    },
  },
  {
    id: "sql-destroy",
    summary: "DROP DATABASE/SCHEMA/TABLE or TRUNCATE given to a database client (-c/-e/argument), or typed into one",
    check({ inv }) {
      const [program, ...args] = inv.argv;
      if (!program || !DATABASE_CLIENTS.has(program)) return null;
      // psql -c, mysql -e, sqlite3 DB "SQL…" (its arguments after the database file).
      const isSql = (a: string, i: number) =>
        /^(-c|-e|--command|--execute|-cmd)$/.test(args[i - 1] ?? "") ||
        (program.startsWith("sqlite") && i > 0 && !a.startsWith("-"));
      const sqlArgs = args.filter(isSql);
      const inline = args.filter((a) => /^--(command|execute)=/.test(a)).map((a) => a.slice(a.indexOf("=") + 1));
      for (const sql of [...sqlArgs, ...inline, inv.source.stdin ?? ""]) {
        const why = destructiveSql(sql);
        if (why) return `${why} (${program})`;
      }
      return null;
    },
  },
  {
    id: "pipe-to-shell",
    summary: 'running a script straight off the network: curl/wget … | sh (bash, python…), sh -c "$(curl …)"',
    check({ inv, pipeline, index }) {
      const program = inv.argv[0] ?? "";
      if (!SHELL_INTERPRETERS.has(program.replace(/[\d.]+$/, "")) && !SHELL_INTERPRETERS.has(program)) return null;
      const feeders = pipeline.slice(0, index);
      if (feeders.some((f) => DOWNLOADERS.has(f.argv[0] ?? "")) && readsProgramFromStdin(inv)) {
        return `${program} runs whatever the download returns, unseen`;
      }
      // `bash <(curl …)`, `sh -c "$(curl …)"`: the download is a substitution in the command itself.
      const downloads = (line: (typeof inv.source.nested)[number]): boolean =>
        line.pipelines.some((p) => p.some((c) => isDownloader(c.argv[0] ?? "") || c.nested.some(downloads)));
      if (inv.source.nested.some(downloads)) return `${program} runs a script downloaded by a substitution, unseen`;
      return null;
    },
  },
  {
    id: "shutdown",
    summary: "shutdown, reboot, halt, poweroff (also systemctl/init/telinit forms)",
    check({ inv }) {
      const [program, ...args] = inv.argv;
      if (args.some((a) => a === "--help" || (a === "-h" && program !== "shutdown") || a === "--version")) return null;
      if (program === "shutdown") return args.includes("-c") ? null : "shutdown stops the machine";
      if (program === "reboot" || program === "halt" || program === "poweroff") return `${program} stops the machine`;
      if (program === "systemctl" && args.some((a) => SYSTEMCTL_STOPS.test(a))) {
        return `systemctl ${args.find((a) => !a.startsWith("-"))} stops or restarts the machine`;
      }
      if ((program === "init" || program === "telinit") && args.some((a) => a === "0" || a === "6")) {
        return `${program} ${args.join(" ")} stops the machine`;
      }
      return null;
    },
  },
];
