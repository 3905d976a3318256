/**
 * Fails when a source file of src/ holds more than one screenful of ideas: over MAX_LINES lines,
 * or a line wider than MAX_COLUMNS (the formatter wraps code, not strings and comments).
 *
 *   bun scripts/check-file-size.ts [dir]     (default: src)
 */
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { sourceFiles } from "./import-graph.ts";

/** A file past this many lines holds several ideas: split it (docs/extending.md). */
const MAX_LINES = 600;
/** What fits a screen beside another. */
const MAX_COLUMNS = 120;

const root = resolve(process.argv[2] ?? "src");
const problems: string[] = [];
const files = sourceFiles(root);
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n");
  const shown = relative(process.cwd(), file);
  if (lines.length - 1 > MAX_LINES) problems.push(`${shown}: ${lines.length - 1} lines (at most ${MAX_LINES})`);
  lines.forEach((line, i) => {
    // An import's module path cannot be wrapped (the formatter keeps such a line whole).
    if ([...line].length > MAX_COLUMNS && !line.startsWith("import "))
      problems.push(`${shown}:${i + 1}: ${[...line].length} columns`);
  });
}
for (const p of problems) console.log(p);
if (problems.length > 0) process.exit(1);
console.log(`file sizes hold: ${files.length} files, none over ${MAX_LINES} lines or ${MAX_COLUMNS} columns`);
