/**
 * Test runs (pytest, jest/vitest, cargo test, go test, python's unittest): the lines for passing
 * tests are dropped; failures with their tracebacks, warnings, the summary and counts stay word
 * for word.
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

/** unittest -v: `test_x (pkg.mod.Class.test_x) ... ok`, or with a docstring, the name line then `doc ... ok`. */
const UNITTEST_NAME = /^\S+ \([\w.]+\)$/;
const UNITTEST_PASS = /^\S+ \([\w.]+\) \.\.\. ok$/;
const UNITTEST_DOC_PASS = /^.* \.\.\. ok$/;
/** The one-character-per-test progress line of a run without -v: its counts are in the summary. */
const UNITTEST_PROGRESS = /^[.FEsxu]+$/;
/** The 70-character rules around each failure and before the summary: "FAIL:"/"ERROR:" start a failure anyway. */
const UNITTEST_RULE = /^(={70}|-{70})$/;
const UNITTEST_SUMMARY = /^Ran \d+ tests? in [\d.]+s$/m;

export const unittestReducer: Reducer = {
  name: "unittest",
  applies: (command, output) => /\bunittest\b/.test(command) || UNITTEST_SUMMARY.test(output),
  reduce(output) {
    const lines = output.split("\n");
    const kept: string[] = [];
    let passes = 0;
    let other = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (UNITTEST_PASS.test(line)) passes++;
      else if (UNITTEST_NAME.test(line) && UNITTEST_DOC_PASS.test(lines[i + 1] ?? "")) {
        passes++;
        i++;
      } else if (UNITTEST_PROGRESS.test(line) || UNITTEST_RULE.test(line)) other++;
      else kept.push(line);
    }
    if (passes + other === 0) return null;
    const what = [passes > 0 ? `${passes} passing-test lines` : "", other > 0 ? `${other} progress/rule lines` : ""];
    return { text: squeezeBlank(kept).join("\n"), dropped: what.filter((w) => w !== "").join(" and ") };
  },
};
