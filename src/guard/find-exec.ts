/**
 * What `find` hands to the commands it runs: `find DIR … -exec CMD {} +` and
 * `find DIR … | xargs CMD` run CMD on what lies under DIR. The paths are not known before find
 * runs, so CMD is judged as given DIR itself: `rm -rf` of what is under / is judged as `rm -rf /`.
 */
import { argvLine } from "./shell-quote.ts";

/** The parts of an invocation these need: its words. */
interface Words {
  argv: string[];
}

/** find's starting points: after its leading options (-H, -L, -P, -D debug, -O level), before the expression. */
export function findStartPaths(args: string[]): string[] {
  let i = 0;
  while (i < args.length && /^-([HLP]+|D|O\d*)$/.test(args[i]!)) i += args[i] === "-D" ? 2 : 1;
  const end = args.findIndex((a, k) => k >= i && (a.startsWith("-") || a === "(" || a === "!"));
  return args.slice(i, end === -1 ? args.length : end);
}

/** find's tests that pick some files out of the tree: with one, find acts on those, not everything. */
const FIND_TESTS = new Set([
  ...["-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex", "-type", "-mtime", "-mmin"],
  ...["-atime", "-amin", "-ctime", "-cmin", "-newer", "-size", "-empty", "-user", "-group", "-perm", "-links"],
]);

/** Does find's expression pick files out (`-name '*.o'`), rather than take the whole tree? */
export function findFilters(args: string[]): boolean {
  return args.some((a) => FIND_TESTS.has(a));
}

/** The root or a directory straight under it (`/`, `/usr`, `/etc/`). */
const TOP_LEVEL = /^\/([^/]+\/?)?$/;

/** Actions of find that run a command, up to `;` or `+`. */
const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** The shell lines a find's `-exec CMD … {} ;` actions amount to, `{}` standing for each start path. */
export function findExecLines(argv: string[]): string[] {
  if (argv[0] !== "find") return [];
  const args = argv.slice(1);
  const starts = findStartPaths(args);
  const paths = starts.length > 0 ? starts : ["."];
  const lines: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!EXEC_ACTIONS.has(args[i]!)) continue;
    const end = args.findIndex((a, k) => k > i && (a === ";" || a === "+"));
    const command = args.slice(i + 1, end === -1 ? args.length : end);
    // With tests, `{}` is something under the start path (judged as a child of it), not the path itself.
    const found = (path: string) => (findFilters(args) ? `${path.replace(/\/+$/, "")}/{}` : path);
    // `find / -exec chmod u-s {} +`, `find /usr -type f -exec chmod 777 {} +`: over the root or a
    // top-level tree, a mode or owner set on what find picks is a recursive chmod of that tree.
    const modeSetter = /^(chmod|chown|chgrp)$/.test(command[0] ?? "") && command.includes("{}");
    for (const path of paths) {
      if (modeSetter && TOP_LEVEL.test(path)) {
        lines.push(argvLine([command[0]!, "-R", ...command.slice(1).map((w) => w.replaceAll("{}", path))]));
      } else lines.push(argvLine(command.map((w) => w.replaceAll("{}", found(path)))));
    }
    i = end === -1 ? args.length : end;
  }
  return lines;
}

/** When a pipe starts with `find DIR …` (or `ls DIR`): DIR, standing for every path it prints; else null. */
export function foundPaths(before: Words[]): string | null {
  const first = before[0];
  // `ls DIR | xargs rm -rf` deletes every entry of DIR: judged as `DIR/*` (the cwd's, without one).
  if (first?.argv[0] === "ls" && before.length === 1) {
    const dirs = first.argv.slice(1).filter((a) => !a.startsWith("-"));
    return (dirs.length > 0 ? dirs : ["."]).map((d) => `${d.replace(/\/+$/, "")}/*`).join(" ");
  }
  if (first?.argv[0] !== "find") return null;
  const args = first.argv.slice(1);
  const starts = findStartPaths(args);
  // With tests (`-name '*.log'`) find prints things under each start path, not the path itself.
  const under = (path: string) => (findFilters(args) ? `${path.replace(/\/+$/, "")}/{}` : path);
  return (starts.length > 0 ? starts : ["."]).map(under).join(" ");
}

/** xargs's command given the words it read: put where the replace string stands (`-I {}`), else appended. */
export function withXargsInput(command: string[], words: string[], replace = "{}"): string[] {
  if (words.length === 0) return command;
  if (command.some((w) => w.includes(replace))) return command.map((w) => w.replaceAll(replace, words[0]!));
  return [...command, ...words];
}

/**
 * What xargs reads as items, and its replace string: blank-separated words by default; with `-0`
 * the NUL-separated items, with `-d C` those between C, with `-I R` (or `-i`) whole lines.
 */
export function xargsItems(argv: string[], input: string): { items: string[]; replace: string } {
  const value = (names: RegExp) => argv.find((_a, i) => names.test(argv[i - 1] ?? ""));
  const joined = argv.find((a) => /^(-I.|--replace=)/.test(a));
  const replace =
    value(/^(-I|--replace)$/) ?? joined?.replace(/^(-I|--replace=)/, "") ?? (argv.includes("-i") ? "{}" : null);
  const delimiter = argv.includes("-0") || argv.includes("--null") ? "\0" : value(/^(-d|--delimiter)$/);
  const separator = delimiter !== undefined ? delimiter.replace(/^\\n$/, "\n") : replace !== null ? "\n" : null;
  const items = separator === null ? input.split(/\s+/) : input.replace(/\n$/, "").split(separator);
  return { items: items.filter(Boolean), replace: replace ?? "{}" };
}
