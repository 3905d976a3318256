/**
 * Fails when a folder of src/ imports a folder above it, or when folders import each other in a
 * loop. VS Code's build/lib/layersChecker.ts is the model: each part of the tree has a layer, and
 * a file may import only files of its own layer or of the layers below.
 *
 *   bun scripts/check-layers.ts            (part of `bun run lint`)
 *
 * A part is a top folder of src/ (or a file directly in src/), and each kind under src/backend/ is
 * a part of its own. A kind's params.ts (its term_open parameter, zod only) belongs to the contract,
 * so src/api can list the kinds. Every part must be in the table: a new folder gets a layer here.
 */
import { relative, resolve, sep } from "node:path";
import { chainThrough, cycles, importsOf, sourceFiles } from "./import-graph.ts";
import { LAYERS } from "./layers.ts";

const src = resolve(process.argv[2] ?? "src");

/** The part a file belongs to (see the header). */
function partOf(file: string): string {
  const path = relative(src, file).split(sep);
  if (path.length === 1) return path[0]!.replace(/\.ts$/, "");
  if (path[0] === "backend" && path.length > 2) {
    return path.length === 3 && path[2] === "params.ts" ? "backend/*/params" : `backend/${path[1]}`;
  }
  return path[0]!;
}

const layerOf = new Map<string, number>();
LAYERS.forEach((parts, i) => {
  for (const part of parts) layerOf.set(part, i);
});

/** A part's layer: its own entry, else its folder's wildcard (`backend/*` for each kind). */
function layerOfPart(part: string): number | undefined {
  return layerOf.get(part) ?? layerOf.get(part.replace(/\/[^/]+$/, "/*"));
}

const files = sourceFiles(src);
const problems: string[] = [];
const partGraph = new Map<string, Set<string>>();
/** One file import per part arrow, to name in a report. */
const example = new Map<string, string>();

for (const file of files) {
  const from = partOf(file);
  if (layerOfPart(from) === undefined)
    problems.push(`${relative(src, file)}: its part "${from}" has no layer in LAYERS`);
  for (const target of importsOf(file)) {
    if (!target.startsWith(src + sep)) continue;
    const to = partOf(target);
    if (to === from) continue;
    if (!partGraph.has(from)) partGraph.set(from, new Set());
    partGraph.get(from)!.add(to);
    example.set(`${from}\0${to}`, `${relative(src, file)} -> ${relative(src, target)}`);
    const [a, b] = [layerOfPart(from), layerOfPart(to)];
    if (a !== undefined && b !== undefined && b > a) {
      problems.push(`${from} (layer ${a}) imports ${to} (layer ${b}), above it: ${relative(src, file)}`);
    }
  }
}

const graph = new Map([...partGraph].map(([k, v]) => [k, [...v]]));
for (const component of cycles(graph)) {
  const chain = chainThrough(component, graph);
  const arrows = chain.slice(1).map((to, i) => example.get(`${chain[i]}\0${to}`));
  problems.push(`folder loop: ${chain.join(" -> ")}\n    ${arrows.join("\n    ")}`);
}

for (const p of problems) console.log(p);
if (problems.length > 0) {
  console.log(`${problems.length} layer problem(s) in ${relative(process.cwd(), src)}`);
  process.exit(1);
}
const arrows = [...partGraph.values()].reduce((n, s) => n + s.size, 0);
console.log(`layers hold: ${partGraph.size} parts in ${LAYERS.length} layers, ${arrows} arrows, no folder loop`);
