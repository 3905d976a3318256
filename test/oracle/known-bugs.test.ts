/**
 * Deterministic forms of what the completion oracle found (issue 21) and leaves out or tolerates, as
 * `test.failing`: each fails on the current code, so it passes here; once the fix lands it starts
 * to pass, bun reports that, and the fix's author turns it into a plain `test` (and drops the
 * tolerance in completion-oracle.test.ts).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ctx, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

/**
 * A hook busy for a second or more: far past the wait engine's quiet time before it classifies a
 * running command (INPUT_QUIET_MS, 120 ms), so the misreading is certain, not a race.
 */
const POSTEXEC_BUSY_ITERATIONS = 200_000;

test("fish with a slow fish_postexec handler: term_exec answers done, not `input via prompt`", async () => {
  // A prompt framework's postexec hook doing work, from the user's config.fish: fish itself then
  // leads the foreground group, its tty in its own modes, before its prompt event prints the
  // command's end mark.
  const config = mkdtempSync(join(tmpdir(), "ptyhub-fish-config-"));
  mkdirSync(join(config, "fish"));
  writeFileSync(
    join(config, "fish", "config.fish"),
    `function slow_postexec --on-event fish_postexec\n  for i in (seq 1 ${POSTEXEC_BUSY_ITERATIONS}); end\nend\n`,
  );
  await host.open({ name: "fish-postexec", command: "fish", env: { XDG_CONFIG_HOME: config } }, ctx);
  try {
    const r = await host.exec(
      { session: "fish-postexec", command: "echo x; false", timeout_ms: 30_000, max_tokens: 4000 },
      ctx,
    );
    expect(r).toMatchObject({ status: "done", exit_code: 1, output: "x", via: "shell" });
  } finally {
    await host.close({ session: "fish-postexec" }, ctx);
  }
});

/** `printf` with no final newline: `shell -c` in a pipe prints exactly this. */
const NO_FINAL_NEWLINE = "printf '%s' partial-line";

/** How each shell marks a partial last line on screen: zsh's PROMPT_EOL_MARK (`%`, `#` for root), fish's ⏎. */
const EOL_MARKS: Record<string, RegExp> = { zsh: /partial-line[%#]/, fish: /partial-line⏎/ };

for (const shell of ["zsh", "fish"]) {
  // zsh (PROMPT_SP: `%`, or `#` for root) and fish (`⏎`) mark a last line left without a newline
  // before drawing their prompt; the mark is the shell's, not the command's output.
  test(`${shell}: output without a final newline comes back without the shell's end-of-line mark`, async () => {
    const session = `eol-${shell}`;
    await host.open({ name: session, command: shell }, ctx);
    try {
      const r = await host.exec({ session, command: NO_FINAL_NEWLINE, timeout_ms: 30_000, max_tokens: 4000 }, ctx);
      expect(r).toMatchObject({ status: "done", exit_code: 0, output: "partial-line" });
      // The shell still draws its mark for whoever watches the terminal: after the end mark.
      const screen = await host.read({ session, mode: "screen", max_tokens: 4000 }, ctx);
      expect(screen.output).toMatch(EOL_MARKS[shell]!);
      // A line naming exit, not running it as a command (the oracle's exit codes): no mark either.
      const coded = await host.exec(
        { session, command: `${NO_FINAL_NEWLINE}; sh -c 'exit 3'`, timeout_ms: 30_000, max_tokens: 4000 },
        ctx,
      );
      expect(coded).toMatchObject({ status: "done", exit_code: 3, output: "partial-line" });
      // A line that ends with a newline gets no mark, and the next output none of the old one.
      const next = await host.exec({ session, command: "echo whole-line", timeout_ms: 30_000, max_tokens: 4000 }, ctx);
      expect(next).toMatchObject({ status: "done", exit_code: 0, output: "whole-line" });
    } finally {
      await host.close({ session }, ctx);
    }
  });
}
