/**
 * The import graph of a source tree, as the lint checks read it (scripts/check-cycles.ts,
 * scripts/check-layers.ts): static imports, type-only imports, re-exports and `import("…")` with a
 * literal path all count — a lazy import or a type import that points back up is still an arrow.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const IMPORT_PATTERNS = [
  /\bimport\s+(?:type\s+)?[^'"();]*?\bfrom\s+["']([^"']+)["']/g,
  /\bexport\s+(?:type\s+)?[^'"();]*?\bfrom\s+["']([^"']+)["']/g,
  /\bimport\s+["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Comments removed, so an import named in a comment draws no edge (strings are kept: paths live there). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

export function importsOf(file: string): string[] {
  const text = withoutComments(readFileSync(file, "utf8"));
  const found = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const spec = m[1]!;
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (existsSync(target)) found.add(target);
    }
  }
  return [...found];
}

/** Tarjan's strongly connected components with more than one file, or a file importing itself. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) !== indexOf.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component);
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return out;
}

/** One shortest chain through a component, start to start, so the report names real edges. */
export function chainThrough(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component.sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const chain = [start];
        for (let at: string | undefined = v; at && at !== start; at = previous.get(at)) chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}
