/** term_open's `env`: which variables make a program run or load code (src/guard/open-env.ts). */
import { describe, expect, test } from "bun:test";
import { readOpenEnv } from "../../src/guard/open-env.ts";

describe("readOpenEnv", () => {
  test("a loader variable with a value is code the guard cannot read; set empty, it loads nothing", () => {
    expect(readOpenEnv({ PYTHONSTARTUP: "/tmp/x.py" }).unreadable).toHaveLength(1);
    expect(readOpenEnv({ PYTHONSTARTUP: "", ZDOTDIR: "" }).unreadable).toEqual([]);
    expect(readOpenEnv({ PATH: "/usr/bin", LANG: "C" })).toEqual({ lines: [], unreadable: [], shown: [] });
  });

  test("shell text in the environment becomes lines to judge", () => {
    expect(readOpenEnv({ PROMPT_COMMAND: "rm -rf /" }).lines).toEqual(["rm -rf /"]);
    expect(readOpenEnv({ PS1: "$(rm -rf ~)" }).lines).toEqual([": $(rm -rf ~)"]);
  });
});
