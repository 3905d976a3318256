/**
 * Issue 21: a wait ends because something said so. Each case here once ended early or returned
 * old output as new: a prompt still being drawn taken for a dropped line, an interrupt answered
 * before the shell's end mark, `until` blind to output that came before the call, an echo taken
 * for new output or matched by `until` when a program re-printed typed-ahead input.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

describe("waits that end only on what said so", () => {
  test("a command typed while the first prompt is still being drawn is done only at its own end", async () => {
    // Every prompt takes 0.5 s to draw, as on a loaded machine: term_open returns at the first
    // mark, so the command is typed ahead of the prompt that then draws below its echo.
    const env = { PROMPT_COMMAND: "sleep 0.5" };
    await host.open({ name: "slow", env }, ctx);
    const r = await host.exec({ session: "slow", command: "echo hello; false", ...defaults }, ctx);
    expect(r).toMatchObject({ status: "done", exit_code: 1, output: "hello", via: "shell" });
    await host.close({ session: "slow" }, ctx);
    await host.open({ name: "slow2", env }, ctx);
    const e = await host.exec(
      { session: "slow2", command: "exec env -u PROMPT_COMMAND bash --norc", ...defaults },
      ctx,
    );
    expect(e).toMatchObject({ status: "input", exit_code: null });
    await host.close({ session: "slow2" }, ctx);
  });
});
