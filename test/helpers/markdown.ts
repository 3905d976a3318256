/**
 * Reading the docs as the tests that hold them to the code need (test/unit/docs-*.test.ts): a
 * section by its heading, and the first column of its tables. Deliberately small: the docs are
 * written for people, and these tests read only the tables and headings they promise to keep.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO = join(import.meta.dir, "../..");

/** A file of the repository, e.g. "docs/tools.md". */
export function readDoc(path: string): string {
  return readFileSync(join(REPO, path), "utf8");
}

/** Text outside fenced code blocks, where a `#` or a `|` is not markdown. */
function withoutFences(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
}

/**
 * The body of the section whose heading line is exactly `heading` (e.g. "## Errors"), up to the
 * next heading of the same or a higher level. Throws when there is no such heading, so a renamed
 * section fails its test rather than making it check nothing.
 */
export function section(text: string, heading: string): string {
  const lines = withoutFences(text).split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = heading.match(/^#+/)![0].length;
  const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && line.match(/^#+/)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/**
 * The backticked names opening the first cell of each row of every table in `text` whose header
 * row starts with `firstHeader` (e.g. "rule id"): `| \`rm-recursive-root\` | … |` gives
 * "rm-recursive-root". Rows whose first cell opens with no backticked name are skipped.
 */
export function firstColumn(text: string, firstHeader: string): string[] {
  const names: string[] = [];
  let inTable = false;
  for (const line of withoutFences(text).split("\n")) {
    if (!line.startsWith("|")) {
      inTable = false;
      continue;
    }
    const first = line.split("|")[1]!.trim();
    if (!inTable) {
      inTable = first === firstHeader;
      continue;
    }
    const name = first.match(/^`([^`]+)`/);
    if (name) names.push(name[1]!);
  }
  return names;
}

/** Each cell of the given column (0-based) in the tables headed by `firstHeader`, row by row. */
export function column(text: string, firstHeader: string, index: number): string[] {
  const cells: string[] = [];
  let inTable = false;
  for (const line of withoutFences(text).split("\n")) {
    if (!line.startsWith("|")) {
      inTable = false;
      continue;
    }
    const parts = line.split("|").map((c) => c.trim());
    if (!inTable) {
      inTable = parts[1] === firstHeader;
      continue;
    }
    if (/^-+$/.test(parts[1]!)) continue;
    cells.push(parts[index + 1] ?? "");
  }
  return cells;
}
