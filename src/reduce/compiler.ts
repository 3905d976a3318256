/**
 * Builds and compilers (tsc, gcc/clang, cargo, go, make): progress chatter is dropped; every
 * diagnostic with its file:line, code snippet and notes, and the summary, stays. Repeated
 * identical diagnostics (a header included from many files) are kept once, with a count.
 */
import { squeezeBlank, type Reducer } from "./types.ts";

const BUILDERS = new RegExp(
  "\\b(tsc|gcc|g\\+\\+|clang\\+?\\+?|cc|make|cmake|ninja|cargo\\s+(build|check|clippy)|go\\s+(build|vet)|" +
    "rustc|javac|mvn|gradle)\\b",
);
const DIAGNOSTIC = /^(\S+?):(\d+)(:\d+)?:?\s*(fatal error|error|warning)\b|^(error|warning)(\[\w+\])?:|\berror TS\d+:/;
/** The lines that belong to the diagnostic above them: indented snippets, `-->` locations, `3 | code`. */
const CONTINUATION = /^(\s+\S|\d+\s*\|)/;
const CHATTER = [
  /^\s*(Compiling|Checking|Downloaded|Downloading|Fresh|Blocking|Updating|Locking|Adding)\s+\S+/, // cargo
  /^make(\[\d+\])?: (Entering|Leaving|Nothing to be done)/,
  /^\s*\[\s*\d+%\]\s+(Building|Linking|Built target)/, // cmake
  /^\s*(CC|CXX|LD|AR|AS|GEN|CCLD)\s+\S+$/, // kbuild-style quiet lines
];

export const compilerReducer: Reducer = {
  name: "build",
  applies: (command, output) => BUILDERS.test(command) && output.split("\n").some((l) => DIAGNOSTIC.test(l)),
  reduce(output) {
    const out: string[] = [];
    const seen = new Map<string, number>();
    /** How often the diagnostic at an index of `out` appeared. */
    const counts = new Map<number, number>();
    let chatter = 0;
    let repeats = 0;
    // A diagnostic is its first line plus the snippet lines after it.
    const lines = output.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (CHATTER.some((c) => c.test(line))) {
        chatter++;
        continue;
      }
      if (!DIAGNOSTIC.test(line)) {
        out.push(line);
        continue;
      }
      let end = i + 1;
      while (end < lines.length && CONTINUATION.test(lines[end]!) && !DIAGNOSTIC.test(lines[end]!)) end++;
      const block = lines.slice(i, end).join("\n");
      const index = seen.get(block);
      if (index === undefined) {
        seen.set(block, out.length);
        out.push(block);
      } else {
        repeats++;
        const times = (counts.get(index) ?? 1) + 1;
        counts.set(index, times);
        const [first, ...snippet] = block.split("\n");
        out[index] = [`${first} (×${times})`, ...snippet].join("\n");
      }
      i = end - 1;
    }
    if (chatter === 0 && repeats === 0) return null;
    const parts = [];
    if (chatter > 0) parts.push(`${chatter} progress lines`);
    if (repeats > 0) parts.push(`${repeats} repeated diagnostics (counted as ×N)`);
    return { text: squeezeBlank(out.join("\n").split("\n")).join("\n"), dropped: parts.join(", ") };
  },
};
