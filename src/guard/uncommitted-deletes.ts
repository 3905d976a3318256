/**
 * Deleting files of the working directory's repository that hold uncommitted changes — `rm -rf
 * src`, `find . -type f -delete`, `shred -u src/*`, `git ls-files | xargs rm` — loses that work
 * as surely as `git reset --hard` does: git has no copy of it. Build outputs and other paths with
 * no tracked change (`rm -rf ./build`) are not touched by this.
 */
import { posix } from "node:path";
import type { RuleContext, RuleInput } from "./rule-types.ts";
import { deletedTrees } from "./deleted-trees.ts";
import { resolveWord } from "./judged-paths.ts";
import { options } from "./options.ts";

/** find's tests that still leave every file of the tree chosen (`-type f`, depth limits). */
const TAKES_EVERY_FILE = /^(-type|-xtype|-mindepth|-maxdepth|-depth|-mount|-xdev)$/;
/** Tools that delete (or overwrite) the files they are given, without -r. */
const FILE_REMOVERS = new Set(["rm", "shred", "unlink", "srm"]);

/** Paths (absolute) of tracked files with changes in the porcelain status of `dir`. */
function changedFiles(status: string, dir: string): string[] {
  return status
    .split("\n")
    .filter((l) => l.length > 3 && !l.startsWith("??") && !l.startsWith("!!"))
    .map((l) => l.slice(3).replace(/^.* -> /, ""))
    .map((p) => posix.join(dir, p.replace(/^"|"$/g, "")));
}

/** Does a path the deletion names (a directory, a file or a glob) take `file` with it? */
function covers(path: string, file: string): boolean {
  if (file === path || file.startsWith(`${path}/`)) return true;
  if (!/[*?[]/.test(posix.basename(path))) return false;
  // `src/*`, `src/*.ts`: a glob over the directory's entries.
  const dir = posix.dirname(path);
  const glob = new RegExp(
    `^${posix
      .basename(path)
      .replace(/[.+^$()|\\{}]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]")}$`,
  );
  if (!file.startsWith(`${dir}/`)) return false;
  return glob.test(file.slice(dir.length + 1).split("/")[0]!);
}

/** The words this invocation deletes, whole trees or single files. */
function deletedWords(input: RuleInput): string[] {
  const [program = "", ...args] = input.inv.argv;
  const words: string[] = [];
  for (const tree of deletedTrees(input.inv)) {
    const picky = program === "find" && args.some((a, i) => /^-/.test(a) && isPickingTest(args, i));
    if (!picky) words.push(tree.word);
  }
  if (FILE_REMOVERS.has(program)) words.push(...options(args).operands);
  return words;
}

/** Is `args[i]` a find test that picks some files (a name, a time), not every file of the tree? */
function isPickingTest(args: string[], i: number): boolean {
  const a = args[i]!;
  if (TAKES_EVERY_FILE.test(a) || /^-(delete|exec|execdir|print0?|depth|ok)$/.test(a)) return false;
  // Values of options, and words after -exec, are not tests.
  const inExec = args.slice(0, i).some((w) => /^-(exec|execdir|ok)$/.test(w));
  return !inExec && /^-(name|iname|path|ipath|regex|iregex|mtime|mmin|newer|size|empty|user|perm|wholename)$/.test(a);
}

/** `git ls-files | xargs rm`: every tracked file deleted. */
function tracksListedDeleted({ inv, pipeline, index }: RuleInput): boolean {
  const removes = inv.argv[0] !== undefined && FILE_REMOVERS.has(inv.argv[0]);
  const listed = pipeline.slice(0, index).some((f) => f.argv[0] === "git" && f.argv.includes("ls-files"));
  return removes && listed && index > 0;
}

/**
 * `git checkout HEAD -- src/`, `git restore src/a.ts`: the first file with uncommitted changes in
 * `dir` that a checkout or restore of these paths writes over, or null.
 */
export function changedFileCovered(operands: string[], dir: string | null, ctx: RuleContext): string | null {
  if (dir === null) return null;
  const status = ctx.gitStatus(dir);
  if (status === null || status === "") return null;
  const changed = changedFiles(status, dir);
  for (const word of operands) {
    const path = resolveWord(word, { ...ctx, cwd: dir });
    const lost = path === null ? undefined : changed.find((f) => covers(path, f));
    if (lost !== undefined) return lost;
  }
  return null;
}

/** Why this deletion loses uncommitted work in the working directory's repository, or null. */
export function uncommittedWorkDeleted(input: RuleInput, ctx: RuleContext): string | null {
  const cwd = ctx.cwd;
  if (cwd === null) return null;
  const words = deletedWords(input);
  const listed = tracksListedDeleted(input);
  if (words.length === 0 && !listed) return null;
  const status = ctx.gitStatus(cwd);
  if (status === null || status === "") return null;
  const changed = changedFiles(status, cwd);
  if (changed.length === 0) return null;
  if (listed) return `deleting every tracked file loses ${changed.length} uncommitted change(s) in ${cwd}`;
  for (const word of words) {
    const path = resolveWord(word, ctx);
    if (path === null || !(path === cwd || path.startsWith(`${cwd}/`))) continue;
    const lost = changed.filter((f) => covers(path, f));
    if (lost.length > 0) return `${input.inv.argv[0]} deletes ${word}, with uncommitted changes (${lost[0]})`;
  }
  return null;
}
