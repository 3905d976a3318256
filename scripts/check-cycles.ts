/**
 * Fails when the import graph of src/ has a cycle: static imports, type-only imports, re-exports
 * and `import("…")` with a literal path all count (issue 24: the contract sits at the bottom, and a
 * lazy import or a type import that points back up is still a cycle in the design).
 *
 *   bun scripts/check-cycles.ts [dir]     (default: src)
 *
 * Prints each cycle as a chain of files and exits 1 when there is any; exits 0 with a count of the
 * files and imports it read otherwise.
 */
import { relative, resolve } from "node:path";
import { chainThrough, cycles, importsOf, sourceFiles } from "./import-graph.ts";

const root = resolve(process.argv[2] ?? "src");
const files = sourceFiles(root);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const found = cycles(graph);
const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
const show = (f: string) => relative(process.cwd(), f);
for (const component of found) {
  console.log(`cycle of ${component.length} files: ${chainThrough(component, graph).map(show).join(" -> ")}`);
  if (component.length > 2) console.log(`  all: ${component.map(show).sort().join(", ")}`);
}
if (found.length > 0) {
  console.log(`${found.length} import cycle(s) in ${show(root)}`);
  process.exit(1);
}
console.log(`no import cycle: ${files.length} files, ${edges} imports`);
