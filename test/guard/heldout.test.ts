/**
 * The held-out corpus (heldout.jsonl, 557 lines: 371 of the claimed classes, 186 benign), written
 * for issue 23 by another hand from the README's claims alone, without reading the guard's rules
 * or tests. It runs through the real `ptyhub guard check --json`, one call per cwd the corpus
 * names. The corpus's dirty repository (/work/repo-dirty) is a real one made here: its path is
 * replaced in the lines and cwds; HOME is the corpus user's. Recall and precision must stay ≥ 0.95; they are printed.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { dirtyRepo } from "./repo.ts";

const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");
const CORPUS = join(import.meta.dir, "heldout.jsonl");
const CORPUS_REPO = "/work/repo-dirty";
/** The corpus's user works in /home/dev/app: their home (for `~`, `$HOME`) is /home/dev. */
const CORPUS_HOME = "/home/dev";
const MIN_RECALL = 0.95;
const MIN_PRECISION = 0.95;

interface Entry {
  line: string;
  cwd: string;
  dangerous: boolean;
  class: string;
}
interface Verdict {
  line: string;
  stopped: boolean;
  rules: { id: string; reason: string }[];
}

describe("guard: held-out corpus", () => {
  test(`recall ≥ ${MIN_RECALL} and precision ≥ ${MIN_PRECISION} through ptyhub guard check --json`, async () => {
    const repo = dirtyRepo();
    const entries: Entry[] = (await Bun.file(CORPUS).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .map((e: Entry) => ({ ...e, line: e.line.replaceAll(CORPUS_REPO, repo), cwd: e.cwd.replace(CORPUS_REPO, repo) }));
    const byCwd = Map.groupBy(entries, (e) => e.cwd);
    const verdicts = new Map<Entry, Verdict>();
    for (const [cwd, group] of byCwd) {
      const p = Bun.spawnSync(
        [process.execPath, CLI, "guard", "check", "--json", "--cwd", cwd, "--", ...group.map((e) => e.line)],
        { stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: CORPUS_HOME } },
      );
      const out: Verdict[] = p.stdout
        .toString()
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(out.map((v) => v.line)).toEqual(group.map((e) => e.line));
      expect(p.exitCode).toBe(out.some((v) => v.stopped) ? 1 : 0);
      for (const [i, e] of group.entries()) verdicts.set(e, out[i]!);
    }
    const dangerous = entries.filter((e) => e.dangerous);
    const missed = dangerous.filter((e) => !verdicts.get(e)!.stopped);
    const falseAlarms = entries.filter((e) => !e.dangerous && verdicts.get(e)!.stopped);
    const caught = dangerous.length - missed.length;
    const recall = caught / dangerous.length;
    const precision = caught / (caught + falseAlarms.length);
    console.log(
      `held-out: ${dangerous.length} dangerous, ${entries.length - dangerous.length} benign; ` +
        `recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)}`,
    );
    if (missed.length > 0) console.log(`missed:\n${missed.map((e) => `  ${e.class}: ${e.line}`).join("\n")}`);
    if (falseAlarms.length > 0) console.log(`false alarms:\n${falseAlarms.map((e) => `  ${e.line}`).join("\n")}`);
    expect(recall).toBeGreaterThanOrEqual(MIN_RECALL);
    expect(precision).toBeGreaterThanOrEqual(MIN_PRECISION);
  });
});
