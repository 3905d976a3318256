/**
 * The guard's classifier against the corpus (corpus.ts): every dangerous line is caught (recall
 * 1.0) and the look-alikes pass (precision ≥ 0.95). The numbers are printed for the README.
 * Git's answers come from a fixed table so that the verdicts do not depend on this machine.
 */
import { describe, expect, test } from "bun:test";
import { classifyShellLine, classifySqlLine, ruleSet } from "../../src/guard/classify.ts";
import { parseShellLine } from "../../src/guard/parse.ts";
import { corpusContext as context, dangerous, harmless } from "./corpus.ts";

const rules = ruleSet();

describe("guard corpus", () => {
  test("recall 1.0 on the dangerous lines, precision ≥ 0.95", () => {
    expect(dangerous.length + harmless.length).toBeGreaterThanOrEqual(200);
    const missed = dangerous.filter((l) => classifyShellLine(l, context, rules).length === 0);
    const falseAlarms = harmless.filter((l) => classifyShellLine(l, context, rules).length > 0);
    const truePositives = dangerous.length - missed.length;
    const recall = truePositives / dangerous.length;
    const precision = truePositives / (truePositives + falseAlarms.length);
    console.log(
      `guard corpus: ${dangerous.length} dangerous, ${harmless.length} harmless; recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)}`,
    );
    expect(missed).toEqual([]);
    expect(recall).toBe(1);
    expect(precision).toBeGreaterThanOrEqual(0.95);
  });

  test("each finding names its rule and says why", () => {
    expect(classifyShellLine("sudo rm -rf /", context, rules)).toEqual([
      { rule: "rm-recursive-root", reason: "rm -r deletes the root directory /" },
    ]);
    expect(classifyShellLine("git reset --hard", context, rules)[0]!.reason).toContain("2 changed or untracked paths");
    expect(classifyShellLine(":(){ :|:& };:", context, rules)[0]!.rule).toBe("fork-bomb");
  });

  test("a disabled rule no longer matches; an added pattern rule does", () => {
    const custom = ruleSet({
      // infra-destroy is off too, so that the added pattern rule is the only one to match terraform destroy.
      disable: ["shutdown", "fork-bomb", "infra-destroy"],
      patterns: [
        { id: "no-terraform-destroy", pattern: /^terraform destroy\b/, reason: "destroys the infrastructure" },
      ],
    });
    expect(classifyShellLine("sudo reboot", context, custom)).toEqual([]);
    expect(classifyShellLine(":(){ :|:& };:", context, custom)).toEqual([]);
    expect(classifyShellLine("cd infra && terraform destroy -auto-approve", context, custom)).toEqual([
      { rule: "no-terraform-destroy", reason: "destroys the infrastructure" },
    ]);
    expect(classifyShellLine("rm -rf /", context, custom).length).toBe(1);
  });

  test("SQL typed at a database client's prompt", () => {
    for (const sql of [
      "DROP TABLE users;",
      "drop database shop;",
      "TRUNCATE orders;",
      'truncate table "Logs";',
      "DROP SCHEMA public CASCADE;",
    ]) {
      expect(classifySqlLine(sql, rules).length).toBe(1);
    }
    for (const sql of [
      "SELECT * FROM users;",
      "SELECT 'DROP TABLE x';",
      "-- TRUNCATE later\nSELECT 1;",
      "CREATE TABLE drops (id int);",
      "\\dt",
      "SELECT truncate(1.5);",
    ]) {
      expect(classifySqlLine(sql, rules)).toEqual([]);
    }
  });

  test("the parser removes quotes and escapes and finds nested commands", () => {
    const p = parseShellLine(`FOO=1 'r'"m" -rf "a b" \\$x; echo "$(ls -l | wc -l)" && (cd /tmp || exit) > out 2>&1`);
    expect(p.pipelines.map((pl) => pl.map((c) => c.argv))).toEqual([
      [["rm", "-rf", "a b", "$x"]],
      [["echo", "$(ls -l | wc -l)"]],
      [[]],
    ]);
    expect(p.pipelines[1]![0]!.nested[0]!.pipelines.map((pl) => pl.map((c) => c.argv[0]))).toEqual([["ls", "wc"]]);
    const sub = p.pipelines[2]![0]!;
    expect(sub.nested[0]!.pipelines.map((pl) => pl[0]!.argv[0])).toEqual(["cd", "exit"]);
    expect(sub.redirects).toEqual([
      { op: ">", target: "out" },
      { op: ">&", target: "1" },
    ]);
    expect(parseShellLine("echo 'unterminated").incomplete).toBe(true);
    expect(parseShellLine("cat <<EOF\nhello\nEOF").pipelines[0]![0]!.stdin).toBe("hello\n");
  });
});
