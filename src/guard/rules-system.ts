/**
 * The `empty-system-file` rule: truncating a system or credential file to nothing (`truncate -s 0
 * /etc/passwd`, `: > /etc/shadow`, `cat /dev/null > ~/.ssh/authorized_keys`), and writing over,
 * moving away, linking over or deleting the files the system cannot run or log in without.
 */
import type { Rule, RuleContext } from "./rule-types.ts";
import type { Invocation } from "./unwrap.ts";
import { resolveWord } from "./judged-paths.ts";
import { options } from "./options.ts";
import { programText } from "./one-liners.ts";

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
const CRITICAL = new RegExp(
  "^/etc/(passwd|shadow|group|gshadow|sudoers|sudoers\\.d/.+|fstab|crypttab|pam\\.d/.+|ssh/sshd_config(\\.d/.+)?|" +
    "hosts|resolv\\.conf|hostname|nsswitch\\.conf|login\\.defs|shells|security/.+|ld\\.so\\.(conf|preload)|" +
    "default/grub|crontab|anacrontab|cron\\.(d|daily|hourly|weekly|monthly)(/.+)?|rc\\.local|environment|" +
    "profile|bash\\.bashrc|inittab|systemd/system\\.conf|ssl/private/.+|letsencrypt/(live|archive)/.+|" +
    "ssh/ssh_host_.+|machine-id|os-release|ld\\.so\\.cache|apt/sources\\.list|pam\\.d|sudoers\\.d|" +
    "sysctl\\.conf|logrotate\\.conf|hosts\\.(allow|deny)|netplan/.+|network/interfaces|localtime|" +
    "ssl/certs/ca-certificates\\.crt|pki/tls/certs/ca-bundle\\.crt|" +
    "systemd/system/(.+\\.timer|timers\\.target\\.wants/.+|[^/]+\\.wants/.+))$|^/var/spool/cron/.+|" +
    "^/var/lib/(dpkg/status|rpm/.+)$|^/(vmlinuz|initrd\\.img)(\\.old)?$|" +
    // Who logged in, failed to, or became root: the records an intrusion is traced by.
    "^/var/log/(wtmp|btmp|lastlog|faillog|auth\\.log.*|secure.*|audit/.+)$",
);
/** The programs and libraries the system runs (not /usr/local): deleted, moved or overwritten, nothing starts. */
const SYSTEM_PROGRAM = /^\/(usr\/)?(s?bin|lib(32|64|x32)?|libexec)\/.+|^\/boot\/.+/;
/** Trees moved away whole: the root's directories, and /usr's (`mv /etc /etc.old`, `mv /usr/bin /tmp`). */
const SYSTEM_TREE =
  /^\/(etc|usr|bin|sbin|lib(32|64)?|boot|root|home|var|var\/lib|usr\/(s?bin|lib(32|64)?|libexec|share))$/;
const HOME_CRITICAL = /^\/\.ssh\/(authorized_keys|id_[a-z0-9_]+)$/;

/** Is `word` in the home? Its keys' modes are the owner's to set (`chmod 600 ~/.ssh/id_rsa`). */
function inHome(word: string, ctx: RuleContext): boolean {
  return resolveWord(word, ctx)?.startsWith(`${ctx.home}/`) === true;
}

/** Programs that do nothing: copied or linked over a system program, that program stops working. */
const NO_OP_PROGRAM = /^\/((usr\/)?bin\/(true|false)|dev\/null|(usr\/)?s?bin\/nologin)$/;
/** Programs nothing logs in, boots or becomes root without: replaced by anything, they are gone. */
const VITAL_PROGRAM = new RegExp(
  "^/(usr/)?s?bin/(sh|bash|dash|zsh|sudo|su|login|init|systemd|ls|cp|mv|rm|chmod|ln)$|" +
    // The C library and the dynamic loader: every dynamically linked program loads them.
    "^/(usr/)?lib(32|64)?/([^/]+/)?(libc\\.so(\\.\\d+)?|ld-linux[^/]*\\.so(\\.\\d+)?|libpthread\\.so(\\.\\d+)?)$",
);

/** A glob straight in /etc (`rm /etc/*.conf`): a batch of the system's own settings at once. */
const ETC_GLOB = /^\/etc\/[^/]*[*?[][^/]*$/;

/** A glob in a directory of /etc (`/etc/netplan/*.yaml`), for deletions. */
const DEEP_ETC_GLOB = /^\/etc\/[^/]+\/.*[*?[]/;

/** The critical file `word` names (resolved), or null. */
function criticalFile(word: string, ctx: RuleContext, programs = true): string | null {
  const path = resolveWord(word, ctx);
  if (path === null) return null;
  if (CRITICAL.test(path) || ETC_GLOB.test(path) || (programs && SYSTEM_PROGRAM.test(path))) return path;
  return path.startsWith(`${ctx.home}/`) && HOME_CRITICAL.test(path.slice(ctx.home.length)) ? path : null;
}

/**
 * Writes over or deletes of a critical file: `> /etc/passwd`, `tee /etc/shadow`, `cp x /etc/sudoers`,
 * `rm -f /etc/shadow`.
 */
function overwritesCritical(program: string, args: string[], inv: Invocation, ctx: RuleContext): string | null {
  const redirect = inv.source.redirects.find(
    (r) => (r.op === ">" || r.op === ">|" || r.op === "&>") && criticalFile(r.target, ctx, false),
  );
  if (redirect) return `the redirection overwrites ${criticalFile(redirect.target, ctx, false)}`;
  const o = options(args);
  let files: string[] = [];
  if (program === "tee" && !(o.short.has("a") || o.long.has("append"))) files = o.operands;
  else if (/^(cp|mv|install|rsync)$/.test(program)) files = o.operands.slice(-1);
  else if (program === "rm" || program === "shred" || program === "unlink") {
    files = o.operands;
    // `rm /etc/systemd/system/*.service`, `rm /etc/netplan/*.yaml`: a batch of the system's settings.
    const batch = files.find((w) => DEEP_ETC_GLOB.test(resolveWord(w, ctx) ?? ""));
    if (batch) return `${program} deletes every file ${batch} matches, settings the system runs by`;
  }
  // `ln -sf X /etc/passwd` replaces the file with a link; without -f ln refuses an existing file.
  else if (program === "ln" && (o.short.has("f") || o.long.has("force"))) files = o.operands.slice(-1);
  // chmod/chown of /etc/shadow or sudo: readable by all, or nobody may log in or gain root.
  else if (/^(chmod|chown|chgrp|chattr|setfacl)$/.test(program)) {
    // A mode spelled like an option (`chmod -x FILE`) leaves every operand a file.
    const dashMode = program === "chmod" && args.some((a) => /^-[rwxXst]+$/.test(a));
    files = o.operands.slice(dashMode ? 0 : 1).filter((w) => !inHome(w, ctx));
  }
  // Installing a program over one in /usr/bin (`install x /usr/bin/x`, `ln -sf python3 …/python`) is
  // routine setup; deleting, shredding or chmod-ing one is not, nor putting a no-op over the shell.
  const noOp = /^(cp|install|ln|mv)$/.test(program) && o.operands.slice(0, -1).some((w) => NO_OP_PROGRAM.test(w));
  const vital = /^(cp|install|ln|mv)$/.test(program) && VITAL_PROGRAM.test(resolveWord(files[0] ?? "", ctx) ?? "");
  const programs = !/^(tee|cp|install|ln|rsync)$/.test(program) || noOp || vital;
  const file = files.map((w) => criticalFile(w, ctx, programs)).find((f) => f !== null);
  // `chmod 777 /`, `chmod 000 /etc`, `chown dev /usr`: the tree itself, even without -R.
  const tree = /^(chmod|chown|chgrp)$/.test(program)
    ? files.map((w) => resolveWord(w, ctx)).find((p) => p !== null && (p === "/" || SYSTEM_TREE.test(p)))
    : undefined;
  if (tree)
    return `${program} changes the access of ${tree} itself: nothing under it may be reached, or anyone writes there`;
  if (file) return `${program} ${program === "rm" || program === "unlink" ? "deletes" : "overwrites"} ${file}`;
  return program === "mv" ? movesAway(o.operands.slice(0, -1), ctx) : null;
}

/** `mv /etc/passwd /tmp/`, `mv /etc /etc.old`, `mv /bin/bash x`: what the system needs is no longer there. */
function movesAway(sources: string[], ctx: RuleContext): string | null {
  for (const word of sources) {
    const path = resolveWord(word, ctx);
    if (path !== null && SYSTEM_TREE.test(path)) return `mv moves ${path} away`;
    // `mv /etc/nginx /tmp/`, `mv /etc/ssh /etc/ssh.bak`: a service's (or the system's) settings, whole.
    if (path !== null && /^\/etc\/[^/.]+$/.test(path)) return `mv moves ${path} away: what reads it finds nothing`;
    const file = criticalFile(word, ctx);
    if (file) return `mv moves ${file} away`;
  }
  return null;
}

function systemFile(word: string, ctx: RuleContext): string | null {
  const path = resolveWord(word, ctx);
  if (path === null) return null;
  if (SYSTEM_FILE_DIRS.some((d) => path.startsWith(`${d}/`))) return path;
  if (path.startsWith(`${ctx.home}/`) && HOME_AUTH.test(path.slice(ctx.home.length))) return path;
  return null;
}

/** Commands that write nothing, so their `>` empties the file: `:`, `true`, `cat /dev/null`, `echo -n`, `printf ''`. */
export function printsNothing(argv: string[]): boolean {
  const [program = "", ...args] = argv;
  if (program === "" || program === ":" || program === "true") return true;
  if (program === "cat") return args.length > 0 && args.every((a) => a === "/dev/null");
  // `echo`, `echo ""`, `echo -n`: at most a newline.
  if (program === "echo") return args.every((a) => a === "" || /^-[neE]+$/.test(a));
  if (program === "printf") return args.length === 1 && args[0] === "";
  return false;
}

/** `truncate -s 0`, `-s0`, `--size=0`, `-s -999999` (shrinking to nothing). */
export function truncatesToZero(args: string[]): boolean {
  for (const [i, a] of args.entries()) {
    const size = a === "-s" || a === "--size" ? args[i + 1] : /^(-s|--size=)(.+)$/.exec(a)?.[2];
    if (size !== undefined && /^(0+[KMGkmg]?B?|-\d+.*)$/.test(size)) return true;
  }
  return false;
}

/** sed scripts that delete every line: `d`, `1,$d`, `/^/d`, and the pattern dot-star. */
const SED_DELETES_ALL = /^(1,\$)?d$|^\/(\.\*|\^|\$|)\/d$/;

/** Files that decide who may log in or gain root. */
const AUTH_FILE = /^\/etc\/(passwd|shadow|group|gshadow|sudoers(\.d\/.+)?|pam\.d\/.+|ssh\/sshd_config(\.d\/.+)?)$/;
/** The cron tables: an in-place edit comments out or deletes scheduled jobs. */
const CRON_TABLE = /^\/etc\/(crontab|anacrontab|cron\.d\/.+)$|^\/var\/spool\/cron\/.+/;
const isAuthFile = (path: string | null): path is string => path !== null && AUTH_FILE.test(path);
/** Files the boot reads (mounts, kernel command line, preloaded libraries) and who may connect at all. */
const BOOT_FILE = /^\/etc\/(fstab|crypttab|default\/grub|ld\.so\.preload|hosts\.deny)$/;
const isGuardedFile = (path: string | null): path is string =>
  isAuthFile(path) || (path !== null && BOOT_FILE.test(path));

/** `echo 'x ALL=(ALL) NOPASSWD: ALL' >> /etc/sudoers`, `tee -a /etc/passwd`: an account or a grant of root added. */
function appendsToAuth(program: string, args: string[], inv: Invocation, ctx: RuleContext): string | null {
  const appended = inv.source.redirects.find(
    (r) => r.op === ">>" && isGuardedFile(criticalFile(r.target, ctx)) && !/fstab$/.test(r.target),
  );
  if (appended) return `the redirection adds to ${criticalFile(appended.target, ctx)}: who may log in or become root`;
  const o = options(args);
  if (program !== "tee" || !(o.short.has("a") || o.long.has("append"))) return null;
  const file = o.operands.map((w) => criticalFile(w, ctx)).find((f) => isGuardedFile(f) && !f.endsWith("fstab"));
  return file ? `tee -a adds to ${file}: who may log in or become root, or how the system boots` : null;
}

/** A one-line program that opens a file for writing: `open(p, 'w')`, `writeFileSync`, `File.write`, `truncate`. */
const CODE_WRITES =
  /open\s*\([^)]*,\s*['"][wa]b?\+?['"]|writeFileSync|File\.write|write_text|truncate|unlink|os\.remove/;
/** String literals in a program's text. */
const STRING_LITERAL = /'([^']*)'|"([^"]*)"/g;

/** The critical file a one-line program writes over (or truncates, or deletes), or null. */
function codeWritesCritical(code: string, ctx: RuleContext): string | null {
  if (!CODE_WRITES.test(code)) return null;
  for (const m of code.matchAll(STRING_LITERAL)) {
    const literal = m[1] ?? m[2] ?? "";
    const file = literal.startsWith("/") ? criticalFile(literal, ctx) : null;
    if (file) return file;
  }
  return null;
}

/** Does sed edit its files in place (`-i`, `-i.bak`, `-Ei`, `--in-place`)? */
function inPlace(args: string[]): boolean {
  return args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"));
}

/** `sed -i d /etc/passwd`, `sed -i -e '1,$d' FILE`: the system file it empties in place, or null. */
function sedEmpties(args: string[], ctx: RuleContext): string | null {
  if (!inPlace(args)) return null;
  const o = options(args);
  const scripts = args.filter((_a, i) => args[i - 1] === "-e" || args[i - 1] === "--expression");
  const script = scripts.length > 0 ? scripts : o.operands.slice(0, 1);
  const files = scripts.length > 0 ? o.operands.filter((w) => !scripts.includes(w)) : o.operands.slice(1);
  if (!script.some((x) => SED_DELETES_ALL.test(x.trim()))) return null;
  return files.map((w) => systemFile(w, ctx)).find((f) => f !== null) ?? null;
}

/**
 * `journalctl --vacuum-time=1s`, `--vacuum-size=1`: the whole system journal deleted. A vacuum
 * that keeps days or megabytes of it is routine; one that keeps seconds, minutes or bytes is not.
 */
function journalVacuumed(program: string, args: string[]): string | null {
  if (program !== "journalctl") return null;
  const value = (name: string) => {
    const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
    if (at === -1) return null;
    return args[at]!.includes("=") ? args[at]!.slice(name.length + 1) : (args[at + 1] ?? "");
  };
  const time = value("--vacuum-time");
  const size = value("--vacuum-size");
  const tinyTime = time !== null && /^\d+\s*(s|sec|seconds?|m|min|minutes?|ms|us)?$/i.test(time);
  const tinySize = size !== null && /^\d+\s*([bk]|kb)?$/i.test(size);
  return tinyTime || tinySize ? "journalctl --vacuum deletes the whole system journal" : null;
}

/**
 * A service's or the system's main settings file: `/etc/sysctl.conf`, `/etc/nginx/nginx.conf`,
 * `/etc/default/grub`, `/etc/systemd/journald.conf`, `/etc/docker/daemon.json`. A new file beside
 * them (`/etc/apt/sources.list.d/x.list`, `/etc/nginx/conf.d/app.conf`) is setup, not this.
 */
const MAIN_CONFIG = /^\/etc\/([^/]+\.conf|([^/]+)\/\2\.conf|default\/[^/]+|systemd\/[^/]+\.conf|docker\/daemon\.json)$/;

/** `echo x > /etc/nginx/nginx.conf`, `tee /etc/sysctl.conf`: the whole settings file replaced by a line. */
function configReplaced(program: string, args: string[], inv: Invocation, ctx: RuleContext): string | null {
  const target = (w: string) => {
    const path = resolveWord(w, ctx);
    return path !== null && MAIN_CONFIG.test(path) ? path : null;
  };
  const redirect = inv.source.redirects.find((r) => (r.op === ">" || r.op === ">|") && target(r.target));
  if (redirect) return `the redirection replaces ${target(redirect.target)}, the settings it holds lost`;
  const o = options(args);
  const teed = program === "tee" && !(o.short.has("a") || o.long.has("append")) ? o.operands.find(target) : undefined;
  return teed ? `tee replaces ${target(teed)}, the settings it holds lost` : null;
}

/** Groups whose members may become root: leaving them, the user can no longer administer the machine. */
const ADMIN_GROUP = /^(sudo|wheel|admin)$/;

/**
 * The boot made impossible (`update-initramfs -d`, `efibootmgr -B`, `grub-mkconfig -o /dev/null`), a
 * second root account (`useradd -o -u 0`), an administrator dropped from sudo (`gpasswd -d dev sudo`,
 * `usermod -G docker dev` without `-a`), a setuid copy of a shell.
 */
function bootOrRootBroken(program: string, args: string[], ctx: RuleContext): string | null {
  const o = options(args);
  if (program === "update-initramfs" && o.short.has("d")) return "update-initramfs -d deletes the initramfs: no boot";
  if (program === "efibootmgr" && (o.short.has("B") || o.long.has("delete-bootnum"))) {
    return "efibootmgr -B deletes a boot entry";
  }
  if (/^grub2?-mkconfig$/.test(program) && args.includes("/dev/null")) return `${program} writes no boot menu`;
  const uid = args.find((_a, i) => /^(-u|--uid)$/.test(args[i - 1] ?? ""));
  if (/^(useradd|usermod|adduser)$/.test(program) && uid === "0") return `${program} gives a second account root's id`;
  if (program === "gpasswd" && /^(-d|--delete)$/.test(args[0] ?? "") && ADMIN_GROUP.test(args[2] ?? "")) {
    return `gpasswd takes ${args[1]} out of ${args[2]}: no more root`;
  }
  if (program === "deluser" && o.operands.length === 2 && ADMIN_GROUP.test(o.operands[1]!)) {
    return `deluser takes ${o.operands[0]} out of ${o.operands[1]}: no more root`;
  }
  const groups = args.find((_a, i) => /^(-G|--groups)$/.test(args[i - 1] ?? ""));
  if (program === "usermod" && groups !== undefined && !(o.short.has("a") || o.long.has("append"))) {
    if (!groups.split(",").some((g) => ADMIN_GROUP.test(g)))
      return "usermod -G without -a drops the user's other groups";
  }
  // `chmod +s /tmp/rootbash`, `chmod 4755 ~/sh`: a shell or interpreter anyone can run as its owner.
  const setuid = program === "chmod" && /^([ugoa]*[+=][rwxX]*s|[0-7]*[4-7][0-7]{3})$/.test(o.operands[0] ?? "");
  const shell = o.operands
    .slice(1)
    .find((w) =>
      /(^|\/)(ba|da|z|k)?sh$|python\d*|perl|ruby|node|^\/(tmp|var\/tmp|dev\/shm)\//.test(resolveWord(w, ctx) ?? w),
    );
  return setuid && shell ? `chmod makes ${shell} setuid: anyone who runs it acts as its owner` : null;
}

export const EMPTY_SYSTEM_FILE_RULE: Rule = {
  id: "empty-system-file",
  summary:
    "emptying a system or credential file (truncate -s 0, : >, cat /dev/null >, sed -i d into /etc/… " +
    "or ~/.ssh/…); " +
    "overwriting, moving, linking over, chmod or deleting /etc/passwd, shadow, sudoers, hosts, system programs",
  check({ inv }, ctx) {
    const [program = "", ...args] = inv.argv;
    const critical =
      overwritesCritical(program, args, inv, ctx) ??
      journalVacuumed(program, args) ??
      bootOrRootBroken(program, args, ctx) ??
      configReplaced(program, args, inv, ctx);
    if (critical) return critical;
    if (program === "truncate" && truncatesToZero(args)) {
      const file = options(args)
        .operands.map((w) => systemFile(w, ctx) ?? criticalFile(w, ctx, false))
        .find((f) => f !== null);
      if (file) return `truncate empties ${file}`;
    }
    // `docker cp /dev/null app:/etc/passwd`, `kubectl cp /dev/null pod:/etc/passwd`: the same, in a container.
    const containerCopy = /^(docker|podman|kubectl|oc)$/.test(program) && args[0] === "cp";
    const copies = program === "cp" || program === "dd" || program === "scp" || containerCopy;
    if (copies && args.some((a) => /^(if=)?\/dev\/(null|zero|u?random)$/.test(a))) {
      // `scp /dev/null host:/etc/passwd`: the same file on the other host.
      const last = args[args.length - 1]?.replace(/^[^/:]*:(?=\/)/, "");
      const target = program === "dd" ? args.find((a) => a.startsWith("of="))?.slice(3) : last;
      const file = target === undefined ? null : systemFile(target, ctx);
      if (file) return `${program} of /dev/null empties ${file}`;
    }
    const grants = appendsToAuth(program, args, inv, ctx);
    if (grants) return grants;
    const code = programText(inv.argv);
    const written = code === null ? null : codeWritesCritical(code, ctx);
    if (written) return `${program} writes over ${written}`;
    if (program === "perl" && args.some((a) => /^-[a-zA-Z]*i/.test(a))) {
      const auth = options(args)
        .operands.map((w) => criticalFile(w, ctx))
        .find(isAuthFile);
      if (auth) return `perl -i rewrites ${auth}, which decides who may log in`;
    }
    if (program === "sed") {
      const file = sedEmpties(args, ctx);
      if (file) return `sed -i deletes every line of ${file}`;
      // Any in-place edit of who may log in or become root (sshd_config, sudoers, pam.d, shadow).
      const auth = inPlace(args)
        ? options(args)
            .operands.map((w) => criticalFile(w, ctx))
            .find(isGuardedFile)
        : null;
      if (auth) return `sed -i rewrites ${auth}, which decides who may log in`;
      const table = inPlace(args)
        ? options(args)
            .operands.map((w) => resolveWord(w, ctx))
            .find((p) => p !== null && CRON_TABLE.test(p))
        : undefined;
      if (table) return `sed -i rewrites the cron table ${table}: scheduled jobs changed or gone`;
    }
    if (!printsNothing(inv.argv)) return null;
    const emptied = inv.source.redirects.find((r) => (r.op === ">" || r.op === ">|") && systemFile(r.target, ctx));
    return emptied ? `the redirection empties ${systemFile(emptied.target, ctx)}` : null;
  },
};
