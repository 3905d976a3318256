/**
 * A bash line that sets PROMPT_COMMAND anew (`PROMPT_COMMAND='history -a'`, as many .bashrc files
 * do, and so a `source ~/.bashrc`) dropped ptyhub's prompt hooks: every later term_exec answered
 * `input` at the prompt with no exit code, for the rest of the session. The DEBUG trap now puts
 * the hooks back before the next command. Real PTYs, one fresh session per form.
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const FORMS = [
  "PROMPT_COMMAND='history -a'",
  "export PROMPT_COMMAND='echo from-prompt-command'",
  "unset PROMPT_COMMAND",
];

FORMS.forEach((form, i) => {
  test(`after ${form}, term_exec has its exit codes again`, async () => {
    const session = `pc-${i}`;
    await host.open({ name: session }, ctx);
    try {
      await host.exec({ session, command: form, ...defaults }, ctx);
      for (const code of [3, 0]) {
        const r = await host.exec({ session, command: `echo after; (exit ${code})`, ...defaults }, ctx);
        expect(r).toMatchObject({ status: "done", exit_code: code, output: "after" });
      }
    } finally {
      await host.close({ session }, ctx);
    }
  });
});

// A simple command after it in the parent shell restores the hooks in time (not a `( … )` subshell:
// its DEBUG trap runs in the subshell, whose PROMPT_COMMAND is its own).
test("a line that runs a command after the assignment keeps its own exit code", async () => {
  await host.open({ name: "pc-same" }, ctx);
  try {
    const r = await host.exec({ session: "pc-same", command: "PROMPT_COMMAND='history -a'; false", ...defaults }, ctx);
    expect(r).toMatchObject({ status: "done", exit_code: 1 });
  } finally {
    await host.close({ session: "pc-same" }, ctx);
  }
});
