/**
 * Test runs (pytest, jest/vitest, cargo test, go test): the lines for passing tests are dropped;
 * failures with their tracebacks, warnings, the summary and counts stay word for word.
 */
import { dropLines, squeezeBlank, type Reducer } from "./types.ts";

const RUNNERS =
  /\b(pytest|py\.test|jest|vitest|cargo\s+test|go\s+test|npm\s+(run\s+)?test|yarn\s+test|pnpm\s+test|bun\s+test)\b/;
/** Summary lines that identify a runner's output whatever the command was called. */
const SUMMARIES = [
  /^=+ .*\b\d+ (passed|failed)\b.* in [\d.]+s/m, // pytest
  /^Tests:\s+.*\b\d+ (passed|failed)\b/m, // jest
  /^test result: (ok|FAILED)\. \d+ passed/m, // cargo
  /^(ok|FAIL)\s+\S+\s+[\d.]+s$/m, // go
];

const PASSING = [
  /^\S+::\S+.*\sPASSED(\s|$)/, // pytest -v
  /^\S+\.py \.+\s*\[\s*\d+%\]$/, // pytest progress line with only passes
  /^\s*(✓|√)\s/, // jest / vitest
  /^PASS\s+\S/, // jest file that passed
  /^test \S+ \.\.\. ok$/, // cargo
  /^=== (RUN|PAUSE|CONT)\s/, // go -v
  /^\s*--- PASS: /, // go -v
];

export const testsReducer: Reducer = {
  name: "test run",
  applies: (command, output) => RUNNERS.test(command) || SUMMARIES.some((s) => s.test(output)),
  reduce(output) {
    const { kept, dropped } = dropLines(output, (line) => PASSING.some((p) => p.test(line)));
    if (dropped === 0) return null;
    return { text: squeezeBlank(kept).join("\n"), dropped: `${dropped} passing-test lines` };
  },
};
