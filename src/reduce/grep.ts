/**
 * grep/rg/ag matches: `path:line:text` lines grouped under their path (as `rg --heading` prints
 * them), so a file's name is written once instead of on every match. Every match, line number
 * and text stays.
 */
import type { Reducer } from "./types.ts";

const SEARCHERS = /\b(grep|egrep|rg|ag|git\s+grep)\b/;
const MATCH = /^([^:\s][^:]*?):(\d+)([:-])(.*)$/;
/** Below this share of lines in path:line: form, the output is something else: leave it. */
const MIN_MATCH_SHARE = 0.8;

export const grepReducer: Reducer = {
  name: "grep",
  applies: (command) => SEARCHERS.test(command),
  reduce(output) {
    const lines = output.split("\n").filter((l) => l !== "");
    const parsed = lines.map((l) => MATCH.exec(l));
    const matched = parsed.filter((m) => m !== null).length;
    if (lines.length === 0 || matched / lines.length < MIN_MATCH_SHARE) return null;
    const out: string[] = [];
    let path: string | null = null;
    let saved = 0;
    lines.forEach((line, i) => {
      const m = parsed[i];
      if (!m) {
        out.push(line);
        path = null;
        return;
      }
      if (m[1] !== path) {
        path = m[1]!;
        out.push(path);
      } else saved++;
      out.push(`${m[2]}${m[3]}${m[4]}`);
    });
    if (saved === 0) return null;
    return { text: out.join("\n"), dropped: `the path repeated on ${saved} match lines (grouped under each file)` };
  },
};
