/**
 * Diagnostic helper: where a process's resident memory sits, from /proc/<pid>/smaps, in MB of PSS:
 * the executable's file mappings, other files, [heap] (brk), [stack]s, and anonymous mappings split
 * by size. Seen in Bun 1.4.5 on Linux x64: mimalloc's 1 GiB arena (which also holds JSC's 16 KiB
 * heap blocks and typed arrays' storage), a 4 GiB reservation of JSC's, and a 1 GiB JIT pool.
 */
import { readFileSync } from "node:fs";

export interface SmapsParts {
  [part: string]: number;
}

/** PSS per part of `pid`'s mappings, in MB; null when the process is gone. */
export function smapsParts(pid: number): SmapsParts | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, "latin1");
  } catch {
    return null;
  }
  const parts: SmapsParts = {};
  let part = "";
  for (const line of text.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const size = (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 2 ** 20;
      const name = head[3]!.trim();
      if (name === "") part = size >= 64 ? "anon ≥64MB map" : size >= 4 ? "anon 4–64MB map" : "anon <4MB map";
      else if (name.startsWith("[")) part = name.replace(/:.*$/, "");
      else part = name.includes("/$bunfs") || name.endsWith("ptyhub") || name.endsWith("bun") ? "executable" : "files";
      continue;
    }
    const pss = /^Pss:\s+(\d+) kB/.exec(line);
    if (pss) parts[part] = (parts[part] ?? 0) + Number(pss[1]) / 1024;
  }
  return parts;
}

export function formatParts(parts: SmapsParts | null): string {
  if (!parts) return "(gone)";
  return Object.entries(parts)
    .filter(([, mb]) => mb >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, mb]) => `${k} ${mb.toFixed(1)}`)
    .join(", ");
}

/** Each anonymous mapping of `pid` holding at least `minMb` resident, as "start size-MB rss-MB pss-MB". */
export function anonMaps(pid: number, minMb = 0.5): string[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, "latin1");
  } catch {
    return [];
  }
  const out: string[] = [];
  let current: { start: string; size: number; anon: boolean; rss: number } | null = null;
  const flush = () => {
    if (current?.anon && current.rss >= minMb)
      out.push(`${current.start} size ${current.size.toFixed(0)} MB rss ${current.rss.toFixed(1)} MB`);
  };
  for (const line of text.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      flush();
      const size = (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 2 ** 20;
      current = { start: head[1]!, size, anon: head[3]!.trim() === "", rss: 0 };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rss = Number(rss[1]) / 1024;
  }
  flush();
  return out;
}
