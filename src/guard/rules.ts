/**
 * The guard's built-in rules. Each judges one program invocation (wrappers already peeled, see
 * unwrap.ts) and says why it is destructive, or returns null. docs/safety.md lists them by id; a
 * setting turns any of them off or adds pattern rules (config.ts `guard`).
 */
import type { Invocation } from "./unwrap.ts";
import type { Rule, RuleContext } from "./rule-types.ts";
import { options, type Options } from "./options.ts";
import { changedFileCovered, uncommittedWorkDeleted } from "./uncommitted-deletes.ts";
import { clientDatabase, isThrowawayName } from "./throwaway-databases.ts";
import { deletedTrees } from "./deleted-trees.ts";
import { INFRA_RULE } from "./rules-infra.ts";
import { DATASTORE_RULE } from "./rules-datastore.ts";
import { IRREPLACEABLE_RULE } from "./rules-irreplaceable.ts";
import { EMPTY_SYSTEM_FILE_RULE } from "./rules-system.ts";
import { KILL_ALL_RULE } from "./rules-process.ts";
import { SYSTEM_CONFIG_RULE } from "./rules-config.ts";
import { WIPE_DEVICE_RULE } from "./rules-disk.ts";
import { GIT_HISTORY_RULE } from "./rules-git.ts";
import { baseName } from "./unwrap.ts";
import { isDevicePath, preciousPath, resolveWord } from "./judged-paths.ts";
import { DATABASE_CLIENTS, destructiveSql } from "./sql.ts";
import { posix } from "node:path";
import { gitCommand, SHARED_BRANCH } from "./git-command.ts";

export type { Rule, RuleContext, RuleInput } from "./rule-types.ts";

function firstPrecious(words: string[], ctx: RuleContext): string | null {
  for (const w of words) {
    const why = preciousPath(w, ctx);
    if (why) return why;
  }
  return null;
}

/**
 * Does a pathspec given to checkout/restore name the whole work tree (or the directory git runs
 * in, or above it)? `.`, `./`, `*`, `:/`, `:(top)`, `..`, the directory's own path, globs of them.
 */
function coversWorkTree(spec: string, dir: string | null): boolean {
  if (/^:(\/|\(top[^)]*\))/.test(spec)) return true;
  const bare = spec.replace(/(\/+\*?|\/\.\*)$/, "").replace(/^\*$/, ".") || ".";
  if (/^(\.\/?)+$/.test(bare) || /^(\.\.\/?)+$/.test(bare)) return true;
  if (dir === null || !bare.startsWith("/")) return false;
  const resolved = posix.normalize(bare);
  return dir === resolved || dir.startsWith(resolved === "/" ? "/" : `${resolved}/`);
}

/** setfacl's options that take a value (the ACL spec or a file of them); chattr's mode is `+i`/`-a`/`=…`. */
const SETFACL_VALUED = /^(-[mMxX]|--(modify|modify-file|remove|remove-file|set|set-file))$/;

/** `setfacl -R` / `chattr -R` of a precious tree: every file's access (or attributes) changed. */
function aclRecursive(program: string, args: string[], ctx: RuleContext): string | null {
  const recursive = args.some((a) => /^-[a-zA-Z]*R[a-zA-Z]*$/.test(a) || a === "--recursive");
  if (!recursive) return null;
  const files = args.filter(
    (a, i) => !a.startsWith("-") && !a.startsWith("+") && !a.startsWith("=") && !SETFACL_VALUED.test(args[i - 1] ?? ""),
  );
  const what = firstPrecious(files, ctx);
  return what ? `${program} -R changes the access or attributes of everything in ${what}` : null;
}

/** `/`, the home directory, or a top-level directory (`/etc`, `/home`), as `word` resolves. */
function isRootLike(word: string, ctx: RuleContext): boolean {
  const path = resolveWord(word, ctx);
  return path !== null && (path === ctx.home || posix.dirname(path) === "/" || path === "/");
}

/**
 * `mv ~ /tmp/x`, `mv /home/dev elsewhere`, `mv ~/* /tmp/`, `mv X /dev/null`: the root, the home or a
 * top-level tree moved from where everything expects it, or anything moved onto /dev/null (gone).
 */
function movedAway(args: string[], ctx: RuleContext): string | null {
  const { operands } = options(args);
  if (operands.length < 2) return null;
  const destination = resolveWord(operands[operands.length - 1]!, ctx);
  if (destination === "/dev/null") return `mv onto /dev/null destroys ${operands.slice(0, -1).join(" ")}`;
  const source = operands.slice(0, -1).find((w) => isRootLike(w.replace(/\/\*$/, "") || "/", ctx));
  const what = source === undefined ? null : preciousPath(source, ctx);
  return what ? `mv moves ${what} away` : null;
}

/** `git restore --staged` without `--worktree` unstages: the files in the work tree are kept. */
function onlyIndex(sub: string, o: Options): boolean {
  const staged = o.short.has("S") || o.long.has("staged");
  return sub === "restore" && staged && !(o.short.has("W") || o.long.has("worktree"));
}

export const SHELL_INTERPRETERS = new Set([
  ...["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"],
  ...["python", "python3", "perl", "ruby", "node", "bun", "deno", "php", "pwsh"],
]);
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "iwr"]);
const isDownloader = (program: string) => DOWNLOADERS.has(baseName(program));
/** Redirections that write a file (`>&FILE` too, when FILE is not a descriptor number). */
const OUTPUT_REDIRECT = /^(>|>>|>\||&>|&>>|<>|>&)$/;
/** Programs whose last argument is the file they write. */
const COPIERS = new Set(["cp", "install", "pv"]);

/** A chmod mode that starts with `-` (`-w`, `-rwx`, `-x`): chmod has no lowercase option letters. */
const CHMOD_DASH_MODE = /^-[rwxXst]+$/;

/** systemctl verbs that stop or restart the machine (or drop it to a rescue shell). */
const SYSTEMCTL_STOPS = /^(reboot|poweroff|halt|kexec|soft-reboot|suspend|hibernate|emergency|rescue)$/;

/**
 * Per client: the option letter that carries SQL (psql -c, mysql -e, clickhouse-client -q) and the
 * short options that take a value, from their manuals (the letters after one are its value).
 * mysql's -p takes its password only attached (`-pSECRET`), so it is not listed.
 */
const CLIENT_OPTIONS: Record<string, { sql: string; valued: string }> = {
  psql: { sql: "c", valued: "cdfhpUvPTLoFR" },
  duckdb: { sql: "c", valued: "cs" },
  "clickhouse-client": { sql: "q", valued: "qhudC" },
  cqlsh: { sql: "e", valued: "eukfb" },
  sqlite3: { sql: "", valued: "" },
  sqlite: { sql: "", valued: "" },
};
const MYSQL_LIKE = { sql: "e", valued: "eDhPuS" };

/**
 * The SQL a client is given as arguments: `-c SQL`, `-cSQL`, `-Xc SQL` (letters bundled),
 * `--command=SQL`/`--execute SQL`/`--query`, sqlite3's `-cmd SQL` and its arguments after the
 * database file.
 */
function sqlArguments(program: string, args: string[]): string[] {
  const { sql: letter, valued } = CLIENT_OPTIONS[program] ?? MYSQL_LIKE;
  const out: string[] = [];
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const long = /^--(command|execute|query|cmd)(=(.*))?$/.exec(a) ?? (a === "-cmd" ? ["-cmd", "cmd"] : null);
    if (long) {
      out.push(long[3] ?? args[++i] ?? "");
      continue;
    }
    if (a.startsWith("-") && !a.startsWith("--") && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        if (!valued.includes(a[k]!)) continue;
        const value = k + 1 < a.length ? a.slice(k + 1) : args[++i];
        if (a[k] === letter) out.push(value ?? "");
        break;
      }
      continue;
    }
    // sqlite3 DB "SQL…": every argument after the database file is SQL.
    if ((program.startsWith("sqlite") || program === "duckdb") && operands++ > 0) out.push(a);
  }
  return out;
}

/** Options that hand a program a query to run, whatever the client (`-c`, `-e`, `--execute`, sqlcmd's `-Q`). */
const SQL_OPTION = /^(-[ceqQ]|--(command|execute|query|sql))$/;
/** Programs whose `-e`/`-c` is a pattern or text, never a query run against a database. */
const TEXT_TOOLS = new Set(["echo", "printf", "grep", "egrep", "rg", "ag", "sed", "awk", "git", "jq", "perl", "ruby"]);
/** Clients whose every argument may be SQL (`bq query 'DROP …'`, `usql URL -c …`, `trino --execute …`). */
const ANY_SQL_CLIENT = new Set(["bq", "usql", "sqlcmd", "snowsql", "trino", "presto", "beeline", "hive", "spark-sql"]);

/** Builtins that run a script in the current shell. */
const SCRIPT_BUILTINS = new Set(["eval", "source", "."]);
/** Names of standard input as a file: a script read from it is the piped download. */
const STDIN_FILE = /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/** systemd targets that stop the machine or drop it to a rescue shell. */
const STOP_TARGET = /^(poweroff|reboot|halt|kexec|soft-reboot|rescue|emergency)(\.target)?$/;
/** logind's D-Bus methods that stop or restart the machine. */
const LOGIND_STOPS = /(^|\.)(PowerOff|Reboot|Halt|KExec|Suspend|Hibernate)$/;
/** The kernel's magic SysRq trigger: `echo b >` reboots, `o` powers off, immediately. */
const SYSRQ = "/proc/sysrq-trigger";

/** Does the interpreter read its program from standard input (no script file, or `-`/`-s`)? */
function readsProgramFromStdin(inv: Invocation): boolean {
  const args = inv.argv.slice(1);
  if (args.includes("-c") || args.includes("-e") || args.includes("--eval")) return false;
  const operands = args.filter((a) => !a.startsWith("-") || a === "-");
  return operands.length === 0 || STDIN_FILE.test(operands[0]!) || args.includes("-s");
}

export const BUILTIN_RULES: Rule[] = [
  {
    id: "rm-recursive-root",
    summary: "recursive delete (rm -r, find -delete) of /, the home directory, a top-level or system directory",
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program === "rm" && options(args).long.has("no-preserve-root")) {
        const o = options(args);
        if (o.short.has("r") || o.short.has("R") || o.long.has("recursive")) return "rm --no-preserve-root removes /";
      }
      const moved = program === "mv" ? movedAway(args, ctx) : null;
      if (moved) return moved;
      for (const tree of deletedTrees(inv)) {
        if (tree.ontoRootOnly && !isRootLike(tree.word, ctx)) continue;
        const what = preciousPath(tree.word, ctx);
        if (what) return `${tree.how} ${what}`;
      }
      return null;
    },
  },
  {
    id: "mkfs",
    summary: "making a file system or swap (mkfs, mkfs.*, mke2fs, mkswap): erases the device",
    check({ inv }, ctx) {
      const p = inv.argv[0] ?? "";
      if (!/^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|newfs(_.+)?)$/.test(p)) return null;
      // Without an operand there is no device: `mkfs.ext4 -V` prints its version and exits. An operand
      // that resolves outside /dev is an image file (or an option's value); `$DISK` may be a device.
      // mke2fs -n and mkfs.xfs -N only say what they would do.
      const dryRun = /^(mke2fs|mkfs\.ext[234])$/.test(p) ? "-n" : p === "mkfs.xfs" ? "-N" : null;
      if (dryRun !== null && inv.argv.includes(dryRun)) return null;
      const operands = inv.argv.slice(1).filter((a) => !a.startsWith("-"));
      if (!operands.some((a) => isDevicePath(a, ctx) || resolveWord(a, ctx) === null)) return null;
      return `${p} erases whatever is on the target device`;
    },
  },
  {
    id: "dd-device",
    summary: "writing raw data to a device: dd of=/dev/…, or a redirection into a disk device",
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program === "dd" || program === "dcfldd" || program === "dc3dd") {
        const of = args.find((a) => a.startsWith("of="))?.slice(3);
        if (of && isDevicePath(of, ctx)) return `dd overwrites the device ${of}`;
      }
      // Programs that write the files they are given: tee's files, cp's and install's destination.
      const written = program === "tee" ? options(args).operands : COPIERS.has(program ?? "") ? args.slice(-1) : [];
      const file = written.find((a) => !a.startsWith("-") && isDevicePath(a, ctx));
      if (file) return `${program} writes over the device ${file}`;
      const r = inv.source.redirects.find((x) => OUTPUT_REDIRECT.test(x.op) && isDevicePath(x.target, ctx));
      return r ? `the output is written over the device ${r.target}` : null;
    },
  },
  WIPE_DEVICE_RULE,
  {
    id: "chmod-recursive-root",
    summary: "recursive chmod/chown/chgrp of /, the home directory or a system directory",
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program === "setfacl" || program === "chattr") return aclRecursive(program, args, ctx);
      if (program !== "chmod" && program !== "chown" && program !== "chgrp") return null;
      // chmod's mode may look like an option (`-w`, `-rwx`): it is the mode, not a flag.
      const dashMode = program === "chmod" && args.some((a) => CHMOD_DASH_MODE.test(a));
      const o = options(args.filter((a) => !(program === "chmod" && CHMOD_DASH_MODE.test(a))));
      if (!(o.short.has("R") || o.long.has("recursive"))) return null;
      // With --reference=FILE (or a dash mode) every operand is a file; otherwise the first is the mode/owner.
      const files = dashMode || o.long.has("reference") ? o.operands : o.operands.slice(1);
      // Web roots (`/var/www/html`) are given to the web server's user and modes by design.
      const what = firstPrecious(
        files.filter((w) => !/^\/var\/www(\/|$)/.test(resolveWord(w, ctx) ?? "")),
        ctx,
      );
      return what ? `${program} -R changes the permissions or owner of everything in ${what}` : null;
    },
  },
  {
    id: "git-force-push",
    summary: "git push --force (or +refspec) to a shared branch (main, master, develop, release…, production…)",
    check({ inv }, ctx) {
      const git = gitCommand(inv.argv, ctx);
      if (git?.sub !== "push") return null;
      const o = options(git.args);
      // --force-with-lease only checks the remote was not moved meanwhile: the shared branch is rewritten all the same.
      const lease = [...o.long].some((l) => /^force-(with-lease|if-includes)/.test(l));
      const force = o.short.has("f") || o.long.has("force") || lease || o.operands.some((r) => r.startsWith("+"));
      // --mirror force-updates every ref on the remote; --all with --force, every branch.
      if (o.long.has("mirror")) return "git push --mirror overwrites every branch on the remote, shared ones too";
      if (!force) return null;
      if (o.long.has("delete") || o.short.has("d")) return null;
      if (o.long.has("all") || o.long.has("branches"))
        return "git push --force --all rewrites every branch, shared ones too";
      const refspecs = o.operands.slice(1);
      // A refspec's destination (`src:dst`, `+dst`); without one, the checked-out branch.
      const destination = (r: string) => (r.replace(/^\+/, "").split(":").pop() ?? "").replace(/^refs\/heads\//, "");
      const targets = refspecs.length > 0 ? refspecs.map(destination) : [git.dir ? ctx.gitBranch(git.dir) : null];
      for (const t of targets) {
        if (t === null) return "git push --force to the current branch, which could not be checked (it may be shared)";
        // `$(git branch --show-current)`, `"$BRANCH"`: a branch named only when the line runs, maybe a shared one.
        if (/[$`]/.test(t)) return `git push --force to ${t}, a branch that could not be checked (it may be shared)`;
        if (t.includes("*")) return `git push --force of ${t} rewrites every matching branch, shared ones too`;
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
    check(input, ctx) {
      const lost = uncommittedWorkDeleted(input, ctx);
      if (lost) return lost;
      const git = gitCommand(input.inv.argv, ctx);
      if (!git) return null;
      const o = options(git.args);
      const dryRun = o.short.has("n") || o.long.has("dry-run");
      const wholeTree = o.operands.some((a) => coversWorkTree(a, git.dir));
      const forced = o.short.has("f") || o.long.has("force");
      let what: string;
      // Stashes exist nowhere else: clearing them loses that work whatever the tree's state.
      if (git.sub === "stash" && o.operands[0] === "clear") return "git stash clear deletes every stash, unrecoverably";
      if (git.sub === "reset" && o.long.has("hard")) what = "git reset --hard throws away";
      else if (git.sub === "checkout" && forced && !o.short.has("b") && !o.short.has("B")) {
        what = "git checkout --force throws away";
      } else if (git.sub === "switch" && (forced || o.long.has("discard-changes"))) {
        what = "git switch --discard-changes throws away";
      } else if (git.sub === "clean" && (o.short.has("f") || o.long.has("force")) && !dryRun && !o.short.has("X")) {
        // `git clean -fX` removes only what .gitignore ignores: build outputs, not work.
        what = "git clean -f deletes";
      } else if ((git.sub === "checkout" || git.sub === "restore") && wholeTree && !onlyIndex(git.sub, o)) {
        what = `git ${git.sub} of the whole tree throws away`;
      } else if (
        (git.sub === "checkout" || git.sub === "restore") &&
        !onlyIndex(git.sub, o) &&
        changedFileCovered(o.operands, git.dir, ctx) !== null
      ) {
        // `git checkout -- src/app.ts`, `git restore src/`: the changes in those files are gone for good.
        what = `git ${git.sub} writes over the changed files it names, throwing away`;
      } else if (git.sub === "read-tree" && o.short.has("u") && (o.long.has("reset") || o.short.has("m"))) {
        what = "git read-tree -u --reset throws away";
      } else if (git.sub === "rm" && wholeTree && !o.long.has("cached") && (o.short.has("r") || forced)) {
        // `git rm -rf .`: every tracked file deleted from the work tree, changes with them.
        what = "git rm of the whole tree deletes";
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
    check({ inv, pipeline, index }) {
      const [program, ...args] = inv.argv;
      // A test or scratch database (`dropdb myapp_test`, `psql -d scratch -c …`) is there to be thrown away.
      const target = clientDatabase(args.filter((a) => a !== "drop"));
      if (target !== null && isThrowawayName(target)) return null;
      if (program === "dropdb") return "dropdb deletes a whole database";
      if (program === "dropuser") return "dropuser deletes a database role: what logs in as it stops working";
      if (/^(mysqladmin|mariadb-admin)$/.test(program ?? "") && args.includes("drop")) {
        return `${program} drop deletes a whole database`;
      }
      if (!program) return null;
      // Any other client (usql, sqlcmd, bq, trino, beeline, a container's psql …): the SQL it is given.
      if (!DATABASE_CLIENTS.has(program)) {
        if (TEXT_TOOLS.has(program)) return null;
        const sql = args.filter((_a, i) => SQL_OPTION.test(args[i - 1] ?? "") || ANY_SQL_CLIENT.has(program));
        const why = sql.map(destructiveSql).find((w) => w !== null);
        return why ? `${why} (${program})` : null;
      }
      // What the program reads on stdin: a here-document, or what the commands before it in the pipe print.
      const piped = pipeline.slice(0, index).map((f) => [...f.argv.slice(1), f.source.stdin ?? ""].join(" "));
      for (const sql of [...sqlArguments(program, args), inv.source.stdin ?? "", ...piped]) {
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
      const interpreter = SHELL_INTERPRETERS.has(program.replace(/[\d.]+$/, "")) || SHELL_INTERPRETERS.has(program);
      // eval, source and `.` run their argument (`eval "$(curl …)"`, `source <(curl …)`) in this shell.
      if (!interpreter && !SCRIPT_BUILTINS.has(program)) return null;
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
    check({ inv }, ctx) {
      const [program, ...args] = inv.argv;
      if (program === "shutdown") return args.includes("-c") ? null : "shutdown stops the machine";
      if (program === "reboot" || program === "halt" || program === "poweroff") return `${program} stops the machine`;
      if (program === "systemctl" || program === "loginctl") {
        // `systemctl reboot`, or `systemctl isolate|start poweroff.target`: the target is the verb.
        const [verb, ...units] = args.filter((a) => !a.startsWith("-"));
        const stops = SYSTEMCTL_STOPS.test(verb ?? "");
        const toTarget = /^(isolate|start|restart)$/.test(verb ?? "") && units.some((u) => STOP_TARGET.test(u));
        if (stops || toTarget) return `${program} ${[verb, ...units].join(" ")} stops or restarts the machine`;
      }
      if (program === "kexec" && args.some((a) => a === "-e" || a === "--exec")) return "kexec -e restarts the machine";
      // logind's PowerOff/Reboot called over D-Bus: `busctl call org.freedesktop.login1 … Reboot`.
      const bus = /^(dbus-send|busctl|gdbus|qdbus)$/.test(program ?? "") && args.some((a) => a.includes("login1"));
      if (bus && args.some((a) => LOGIND_STOPS.test(a))) return `${program} asks logind to stop the machine`;
      const sysrq =
        inv.source.redirects.some((r) => OUTPUT_REDIRECT.test(r.op) && resolveWord(r.target, ctx) === SYSRQ) ||
        (program === "tee" && args.some((a) => resolveWord(a, ctx) === SYSRQ));
      if (sysrq) return "writing to /proc/sysrq-trigger can reboot or stop the machine at once";
      if ((program === "init" || program === "telinit") && args.some((a) => a === "0" || a === "6")) {
        return `${program} ${args.join(" ")} stops the machine`;
      }
      return null;
    },
  },
  INFRA_RULE,
  DATASTORE_RULE,
  IRREPLACEABLE_RULE,
  EMPTY_SYSTEM_FILE_RULE,
  KILL_ALL_RULE,
  SYSTEM_CONFIG_RULE,
  GIT_HISTORY_RULE,
];
