import { describe, expect, test } from "bun:test";
import { splitJobNotices } from "../../src/terminal/job-notices.ts";
import type { Item } from "../../src/terminal/render.ts";

/** Items as exec builds them: one logical line each, numbered from 10. */
function lines(...texts: string[]): Item[] {
  return texts.map((text, i) => ({ text, lineNo: 10 + i }));
}

function texts(items: Item[]): string[] {
  return items.map((it) => ("gap" in it ? "<gap>" : it.text));
}

describe("splitJobNotices", () => {
  test("bash: ended and stopped jobs are notices; job starts, `Running` and other text are output", () => {
    const out = splitJobNotices(
      lines(
        "[1]+  Done                    sleep 0.3",
        "next",
        "[2]-  Exit 3                  ( sleep 0.2; exit 3 )",
        "[3]   Terminated              sleep 10",
        "[1] 27034",
        "[1]+  Running                 sleep 10 &",
        "[1]+  Segmentation fault (core dumped) ./crash",
        "[x] Done later",
      ),
      "bash",
      "sleep 1; echo next",
    );
    expect(out.notices).toEqual([
      "[1]+  Done                    sleep 0.3",
      "[2]-  Exit 3                  ( sleep 0.2; exit 3 )",
      "[3]   Terminated              sleep 10",
      "[1]+  Segmentation fault (core dumped) ./crash",
    ]);
    expect(texts(out.items)).toEqual([
      "next",
      "[1] 27034",
      "[1]+  Running                 sleep 10 &",
      "[x] Done later",
    ]);
    // Line numbers stay those of history, so a truncation still points at the right lines.
    expect(out.items[0]).toEqual({ text: "next", lineNo: 11 });
  });

  test("dash's form is read as bash's", () => {
    const out = splitJobNotices(lines("[1] + Done                       sleep 10", "x"), "sh", "echo x");
    expect(out.notices).toEqual(["[1] + Done                       sleep 10"]);
  });

  test("zsh: lowercase statuses, with or without the pid", () => {
    const out = splitJobNotices(
      lines(
        "[1]  + done       sleep 0.3",
        "[2]  - exit 3     ( sleep 0.2; exit 3; )",
        "[1]  + 4242 terminated  sleep 10",
        "[1]  + running    sleep 10",
        "[1] 27146",
        "n",
      ),
      "zsh",
      "echo n",
    );
    expect(out.notices).toEqual([
      "[1]  + done       sleep 0.3",
      "[2]  - exit 3     ( sleep 0.2; exit 3; )",
      "[1]  + 4242 terminated  sleep 10",
    ]);
    expect(texts(out.items)).toEqual(["[1]  + running    sleep 10", "[1] 27146", "n"]);
  });

  test("fish: the notice takes its own blank line with it, not the command's", () => {
    const out = splitJobNotices(
      lines("next", "", "fish: Job 1, 'sleep 0.3 &' has ended", "", "tail"),
      "fish",
      "sleep 1; echo next",
    );
    expect(out.notices).toEqual(["fish: Job 1, 'sleep 0.3 &' has ended"]);
    expect(texts(out.items)).toEqual(["next", "", "tail"]);
    const signalled = "fish: Job 1, 'sleep 10 &' terminated by signal SIGTERM (Polite quit request)";
    expect(splitJobNotices(lines(signalled), "fish", "x").notices).toEqual([signalled]);
  });

  test("`jobs` prints the job table: all of it is its output", () => {
    const table = lines("[1]+  Done                    sleep 0.3");
    for (const command of ["jobs", "jobs -l", " builtin jobs"]) {
      expect(splitJobNotices(table, "bash", command)).toEqual({ items: table, notices: [] });
    }
  });

  test("another shell's form is output, and gaps are kept", () => {
    const items: Item[] = [{ gap: true, fromLine: 1, toLine: 5, chars: 100 }, ...lines("[1]  + done  sleep 1")];
    expect(splitJobNotices(items, "bash", "x")).toEqual({ items, notices: [] });
    expect(splitJobNotices(items, null, "x")).toEqual({ items, notices: [] });
  });
});
