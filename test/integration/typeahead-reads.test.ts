/**
 * Found by an outside try of issue 21 (helper hX3, scratch/typeahead.ts): a line typed ahead
 * while a command runs (`term_exec` answered `running`, then `term_send text:"echo two"
 * until:"^two$"`). Whatever the send's wait does, reads must lose nothing: the send's output plus
 * the next `term_read mode:new` hold both the running command's last output (`one`, printed after
 * the send) and the typed line's (`two`). In dash the send ends at the running command's end mark
 * (`two` shares its row with the prompt, so `^two$` never matches); finishSend moved the client's
 * cursor to where the emulator was by then, past `two` already parsed: lost for every later read.
 * In bash, zsh and fish the send dropped everything before the shell's late echo of the typed
 * line (`one` among it), and moved the read position past it: lost too (4 in 8 bash runs).
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, newHost } from "../helpers/host.ts";
import { waitFor } from "../helpers/wait.ts";

const host = newHost();
afterAll(() => host.shutdown());

/** Long enough that the send surely happens while the first command still sleeps. */
const FIRST_COMMAND = "sleep 2; echo one";
/** Bound on the typed line's run, the barrier before the read (a busy machine). */
const RUN_BOUND_MS = 20_000;

async function typeAhead(shell: string): Promise<string> {
  const session = `ta-${shell}`;
  await host.open({ name: session, command: shell }, ctx);
  try {
    const first = await host.exec({ session, command: FIRST_COMMAND, timeout_ms: 300, max_tokens: 4000 }, ctx);
    expect(first.status).toBe("running");
    const send = await host.send({ session, text: "echo two", until: "^two$", wait_ms: 20_000, max_tokens: 4000 }, ctx);
    // Barrier: the typed line has run (its output and the next prompt are there) before the read.
    await waitFor(
      async () => {
        const h = await host.read({ session, mode: "history", from: -3, max_tokens: 4000, wait_ms: 0 }, ctx);
        return /two\n/.test(h.output) && h.state === "prompt";
      },
      RUN_BOUND_MS,
      "the typed line's output and the prompt after it",
    );
    const read = await host.read({ session, mode: "new", wait_ms: 500, max_tokens: 4000 }, ctx);
    return `${send.output}\n${read.output}`;
  } finally {
    await host.close({ session }, ctx);
  }
}

test("dash: a send that ends at the running command's end mark leaves what followed to the next read", async () => {
  const seen = await typeAhead("dash");
  expect(seen).toMatch(/^one$/m);
  expect(seen).toMatch(/two$/m);
});

for (const shell of ["bash", "zsh", "fish"]) {
  test(`${shell}: the running command's output before the late echo of a typed-ahead line is not lost`, async () => {
    const seen = await typeAhead(shell);
    expect(seen).toMatch(/^one$/m);
    expect(seen).toMatch(/^two$/m);
  });
}
