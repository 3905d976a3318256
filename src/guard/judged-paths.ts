/**
 * How the guard judges a path word: resolved the way the shell would (`~`, `$HOME`, relative to
 * the session's cwd, `.`/`..` and repeated slashes folded), then compared with the places whose
 * loss is a disaster: `/`, the home directory, and the system's own directories.
 */
import { posix } from "node:path";

/**
 * Directories of the system itself: deleting or opening up anything inside them breaks the
 * machine. /tmp, /var/tmp, /usr/local and /opt hold the user's own things and are not listed.
 */
const SYSTEM_DIRS = [
  ...["/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/root", "/sbin", "/sys"],
  ...["/usr", "/var", "/home", "/snap", "/srv", "/System", "/Library", "/Applications", "/Users", "/private"],
  ...["/mnt", "/media", "/Volumes", "/nix", "/gnu"],
];
const NOT_SYSTEM = ["/usr/local", "/var/tmp", "/tmp", "/opt", "/private/tmp", "/private/var/folders"];

/** Directories of users', services' and mounted disks' trees: each child is precious, what is deeper is not. */
const USERS_DIRS = new Set(["/home", "/Users", "/srv", "/mnt", "/media", "/Volumes"]);
/** Directories of web sites, each child a site (`/var/www/html`): deeper is the site's own. */
const SITE_ROOTS = ["/var/www"];
/** Trees of installed software: what is in them is anyone's to replace, the whole tree is not. */
const WHOLE_ONLY = ["/opt", "/usr/local"];

export interface PathContext {
  /** The session's working directory, when known (relative words resolve against it). */
  cwd: string | null;
  home: string;
}

/** The absolute path a word names, or null when it depends on something unknown. */
export function resolveWord(word: string, ctx: PathContext): string | null {
  let w = word;
  if (w === "~" || w.startsWith("~/")) w = ctx.home + w.slice(1);
  const user = /^~([a-z_][a-z0-9_.-]*)(?=\/|$)/i.exec(w);
  if (user) w = userHome(user[1]!, ctx) + w.slice(user[0].length);
  w = w.replace(HOME_VARIABLE, ctx.home);
  // `/home/$USER`: the user is the one whose home it is.
  w = w.replace(USER_VARIABLE, posix.basename(ctx.home));
  w = w.replace(HOME_TRIMMED, (_m, op: string, pattern: string) => trimSuffix(ctx.home, op, pattern));
  // The working directory by any name: `$PWD/../..`, `$(pwd)/x`, `~+`; `${PWD%%/*}` trimmed like $HOME.
  if (ctx.cwd !== null) {
    const cwd = ctx.cwd;
    w = w
      .replace(CWD_WORD, cwd)
      .replace(PWD_TRIMMED, (_m, op: string, pattern: string) => trimSuffix(cwd, op, pattern));
  }
  if (w.includes("$") || w.includes("`")) return null;
  if (!w.startsWith("/")) {
    if (ctx.cwd === null) return null;
    w = posix.join(ctx.cwd, w);
  }
  const normalized = posix.normalize(w);
  return normalized.length > 1 ? normalized.replace(/\/+$/, "") : normalized;
}

/**
 * `$HOME`, `${HOME}`, and the expansions that yield $HOME when it is set: `${HOME:?…}`,
 * `${HOME:-…}`, `${HOME-…}`, `${HOME:=…}` (a check against an unset HOME, not a different path).
 */
const HOME_VARIABLE = /^(\$HOME|\$\{HOME(:?[?=-][^}]*)?\})(?=\/|$)/;

const USER_VARIABLE = /\$(USER|LOGNAME)(?![A-Za-z0-9_])|\$\{(USER|LOGNAME)\}/g;
/** `${HOME%/}`, `${HOME%%/*}`: $HOME with a suffix pattern removed. */
const HOME_TRIMMED = /^\$\{HOME(%%?)([^}]*)\}(?=\/|$)/;
const PWD_TRIMMED = /^\$\{PWD(%%?)([^}]*)\}(?=\/|$)/;
const CWD_WORD = /^(\$PWD(?![A-Za-z0-9_])|\$\{PWD\}|\$\(pwd\)|`pwd`|~\+(?=\/|$))/;

/** `${VAR%PATTERN}` (shortest suffix) and `${VAR%%PATTERN}` (longest) as the shell computes them. */
function trimSuffix(value: string, op: string, pattern: string): string {
  const glob = pattern
    .replace(/[.+^$()|[\]\\{}]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  const matcher = new RegExp(`^(?:${glob})$`);
  const cuts = [...Array(value.length + 1).keys()].map((k) => value.length - k);
  // `%` removes the shortest matching suffix: try cut points from the end; `%%`, the longest.
  for (const at of op === "%" ? cuts : cuts.reverse()) if (matcher.test(value.slice(at))) return value.slice(0, at);
  return value;
}

/** `~name`: root's home is /root; anyone else's is a tree under /home (where it is not, it is still someone's). */
function userHome(name: string, ctx: PathContext): string {
  if (name === "root") return "/root";
  const mine = posix.basename(ctx.home);
  return name === mine ? ctx.home : `/home/${name}`;
}

/** Strips a trailing glob (`/*`, `/.*`, `/.[!.]*`): deleting all of a directory's entries is deleting it. */
function withoutTrailingGlob(path: string): string {
  const m = /^(.*?)\/(\*|\.\*|\.\[[^\]]*\]\*|\{[^}]*\}|\*\*)$/.exec(path);
  if (!m) return path;
  return m[1] === "" ? "/" : m[1]!;
}

/**
 * Why losing (or opening up) everything under `word` is a disaster, or null when it is not:
 * the root, the home directory, a top-level directory, or a system directory.
 */
export function preciousPath(word: string, ctx: PathContext): string | null {
  const resolved = resolveWord(word, ctx);
  if (resolved === null) return null;
  const path = withoutTrailingGlob(resolved);
  if (path === "/" || path === "") return "the root directory /";
  if (path === ctx.home) return `the home directory ${ctx.home}`;
  if (posix.dirname(path) === "/" && !NOT_SYSTEM.includes(path)) return `the top-level directory ${path}`;
  if (WHOLE_ONLY.includes(path)) return `the whole tree of installed software ${path}`;
  // `/usr/local/lib`, `/usr/local/bin`: every locally installed program's libraries or commands, whole;
  // `/opt/gitlab`, `/opt/app`: an installed application, with the data many keep beside it.
  if (WHOLE_ONLY.includes(posix.dirname(path))) return `${path}, a whole tree of installed software`;
  if (NOT_SYSTEM.some((d) => path === d || path.startsWith(d + "/"))) return null;
  // Web roots are sites' trees: each site is precious, what is inside one is the site's own business.
  for (const root of SITE_ROOTS) {
    if (path.startsWith(`${root}/`) && posix.dirname(path) !== root) return null;
  }
  // Under the home directory only the home itself (and its glob) is precious, not each project.
  if (ctx.home !== "/" && path.startsWith(ctx.home + "/")) return null;
  for (const dir of SYSTEM_DIRS) {
    if (path === dir) return `the system directory ${dir}`;
    if (!path.startsWith(dir + "/")) continue;
    if (!USERS_DIRS.has(dir)) return `${path}, inside the system directory ${dir}`;
    // Under /home, /Users and /srv each child is someone's whole tree; deeper is their business.
    if (posix.dirname(path) === dir) return `${path}, a whole tree under ${dir}`;
  }
  return null;
}

const HARMLESS_DEVICE =
  /^\/dev\/(null|zero|full|u?random|stdout|stderr|stdin|tty\w*|pts\/.*|fd\/.*|shm\/.*|ptmx|console)$/;

/** A variable whose name, or its last part, says it holds a disk or partition. */
const DEVICE_VARIABLE = /^\$\{?([A-Za-z0-9]+_)*(disk|dev|device|drive|part|partition|blockdev)\d*\}?$/i;

/**
 * Block devices and the like, where a write destroys a file system (not /dev/null, ttys, fds).
 * The word is resolved first: `//dev/vda`, `/dev/./vda`, and `vda` in /dev name the device too.
 */
export function isDevicePath(word: string, ctx: PathContext): boolean {
  const resolved = resolveWord(word, ctx);
  // A variable named for a disk (`$DISK`, `${TARGET_DEV}`, `$part2`) holds a device path.
  if (resolved === null && DEVICE_VARIABLE.test(word)) return true;
  // A word that cannot be resolved (`/dev/$DISK`) still names something under /dev when it says so.
  const path = resolved ?? word;
  if (!path.startsWith("/dev/")) return false;
  return !HARMLESS_DEVICE.test(path);
}
