/**
 * git status, log and diff. status: the "(use git …)" advice is dropped. log (the default
 * format): one line per commit, `<hash> <date> <subject>`, with the author said once when all
 * commits share one, and bodies kept indented. diff: `index` lines and the a/ b/ header pairs
 * become one `--- path` line; hunks stay whole.
 */
import { dropLines, squeezeBlank, type Reducer } from "./types.ts";

const GIT = (sub: string) => new RegExp(`\\bgit(\\s+(-C\\s+\\S+|--no-pager|-c\\s+\\S+))*\\s+${sub}\\b`);

/** `  (use "git add <file>..." to update what will be committed)` and its kin. */
const ADVICE = /^\s*\(use "git [^"]*"( or "git [^"]*")*( to [^)]*)?\)$/;

export const gitStatusReducer: Reducer = {
  name: "git status",
  applies: (command) => GIT("status").test(command),
  reduce(output) {
    const { kept, dropped } = dropLines(output, (line) => ADVICE.test(line));
    if (dropped === 0) return null;
    return { text: squeezeBlank(kept).join("\n"), dropped: `${dropped} "(use git …)" advice lines` };
  },
};

interface Commit {
  hash: string;
  author: string;
  date: string;
  message: string[];
  extra: string[];
}

function parseLog(output: string): Commit[] | null {
  const commits: Commit[] = [];
  let current: Commit | null = null;
  for (const line of output.split("\n")) {
    const head = /^commit ([0-9a-f]{7,64})\b(.*)$/.exec(line);
    if (head) {
      current = { hash: head[1]! + head[2]!, author: "", date: "", message: [], extra: [] };
      commits.push(current);
    } else if (!current) {
      return null; // Not the default format: leave it alone.
    } else if (line.startsWith("Author: ")) current.author = line.slice(8);
    else if (line.startsWith("Date: ")) current.date = line.slice(6).trim();
    else if (line.startsWith("    ")) current.message.push(line.slice(4));
    else if (line.trim() !== "") current.extra.push(line); // Merge:, stat lines, …
  }
  return commits.length > 0 ? commits : null;
}

export const gitLogReducer: Reducer = {
  name: "git log",
  applies: (command, output) => GIT("log").test(command) && /^commit [0-9a-f]{7,}/m.test(output),
  reduce(output) {
    const commits = parseLog(output);
    if (!commits) return null;
    const authors = new Set(commits.map((c) => c.author));
    const oneAuthor = authors.size === 1;
    const lines: string[] = oneAuthor ? [`Author: ${commits[0]!.author} (every commit)`] : [];
    for (const c of commits) {
      const [subject = "", ...body] = c.message;
      lines.push(`${c.hash} ${c.date}${oneAuthor ? "" : ` ${c.author}`} ${subject}`);
      for (const b of [...c.extra, ...body.filter((l) => l.trim() !== "")]) lines.push(`    ${b}`);
    }
    const text = lines.join("\n");
    if (text.length >= output.length) return null;
    return { text, dropped: `the commit/Author/Date labels and blank lines of ${commits.length} commits` };
  },
};

/** Per-file header lines the `+++ path` line makes redundant. */
const DIFF_HEADERS = [/^diff --git /, /^index [0-9a-f]+\.\.[0-9a-f]+/, /^--- (a\/|\/dev\/null)/];

export const gitDiffReducer: Reducer = {
  name: "git diff",
  applies: (command, output) => GIT("(diff|show)").test(command) && /^diff --git /m.test(output),
  reduce(output) {
    const out: string[] = [];
    let dropped = 0;
    for (const line of output.split("\n")) {
      if (DIFF_HEADERS.some((h) => h.test(line))) {
        dropped++;
        continue;
      }
      const plus = /^\+\+\+ (b\/)?(.*)$/.exec(line);
      out.push(plus ? `--- ${plus[2]}` : line);
    }
    if (dropped === 0) return null;
    const note = `${dropped} diff/index/--- header lines (each file is one "--- path" line)`;
    return { text: out.join("\n"), dropped: note };
  },
};
