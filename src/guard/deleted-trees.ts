/**
 * The directory trees one invocation deletes, whatever the tool: `rm -r`, `find … -delete` (or
 * `-exec rm`), `rsync --delete` onto a destination, an interpreter's `shutil.rmtree(…)`. The rules
 * then judge each tree: the root or a system directory (rm-recursive-root), what a person cannot
 * recreate (irreplaceable-delete).
 */
import type { Invocation } from "./unwrap.ts";
import { baseName } from "./unwrap.ts";
import { options } from "./options.ts";
import { findFilters, findStartPaths } from "./find-exec.ts";
import { codeTreeDeletions, programText } from "./one-liners.ts";

export interface DeletedTree {
  /** The path as written (resolved by the rule). */
  word: string;
  /** How it is deleted, for the reason: "rm -r deletes", "find … -delete removes files throughout". */
  how: string;
  /**
   * Only what the source lacks is deleted (rsync --delete): a disaster onto a root — `/`, the
   * home, a top-level directory — but a deployment into a directory deeper down.
   */
  ontoRootOnly?: boolean;
  /** Only what matches tests is deleted (`find DIR -name '*.o' -delete`), not the whole tree. */
  filtered?: boolean;
}

/** rm and its secure-deletion cousins: `-r` removes a tree. */
const REMOVERS = new Set(["rm", "srm", "wipe"]);
/** rsync options that delete what the source lacks at the destination. */
const RSYNC_DELETE = /^(del|delete(-(before|during|delay|after|excluded|missing-args))?)$/;

export function deletedTrees(inv: Invocation): DeletedTree[] {
  const [program = "", ...args] = inv.argv;
  if (REMOVERS.has(program)) {
    const o = options(args);
    if (!(o.short.has("r") || o.short.has("R") || o.long.has("recursive"))) return [];
    return o.operands.map((word) => ({ word, how: `${program} -r deletes` }));
  }
  if (program === "find") {
    const execRemoves = (a: string, i: number) =>
      (a === "-exec" || a === "-execdir") && /^(rm|shred)$/.test(baseName(args[i + 1] ?? ""));
    if (!(args.includes("-delete") || args.some(execRemoves))) return [];
    const starts = findStartPaths(args);
    const filtered = findFilters(args);
    const how = "find … -delete removes files throughout";
    return (starts.length > 0 ? starts : ["."]).map((word) => ({ word, how, filtered }));
  }
  if (program === "rsync") {
    const o = options(args);
    // --dry-run (-n) only lists what it would delete.
    if (![...o.long].some((l) => RSYNC_DELETE.test(l)) || o.short.has("n") || o.long.has("dry-run")) return [];
    const destination = o.operands[o.operands.length - 1];
    if (o.operands.length < 2 || destination === undefined) return [];
    // A remote destination (`host:path`, `host:` for its home): judged as the same path there.
    const remote = /^[^/]*:(.*)$/.exec(destination);
    const word = remote ? remote[1] || "~" : destination;
    return [{ word, how: "rsync --delete deletes everything the source lacks in", ontoRootOnly: true }];
  }
  const windows = windowsTrees(program, args);
  if (windows.length > 0) return windows;
  const code = programText(inv.argv);
  if (code === null) return [];
  return codeTreeDeletions(code).map((word) => ({ word, how: `${program} deletes the tree of` }));
}

/** A Windows path as the guard judges it: `C:\` is the root, `C:\Windows` a top-level directory. */
function windowsPath(word: string): string {
  return word.replace(/^[A-Za-z]:[\\/]*/, "/").replaceAll("\\", "/");
}

/** `del /s /q C:\`, `rd /s /q C:\Windows`, `Remove-Item -Recurse -Force ~`: Windows' recursive deletions. */
function windowsTrees(program: string, args: string[]): DeletedTree[] {
  const name = program.toLowerCase().replace(/\.exe$/, "");
  const cmdRecursive = /^(del|erase|rd|rmdir)$/.test(name) && args.some((a) => /^\/s$/i.test(a));
  const psRecursive =
    /^(remove-item|ri|rm|del|rmdir|rd)$/.test(name) && args.some((a) => /^-r(ecurse)?$/i.test(a) && a !== "-r");
  if (!cmdRecursive && !psRecursive) return [];
  const words = args.filter((a) => !/^[/-]/.test(a) || /^\/[^a-z]/i.test(a) || /^[/\\]$/.test(a));
  return words.map((w) => ({ word: windowsPath(w), how: `${program} deletes` }));
}
