/**
 * Found by an outside try of issue 21 (helper hX3, scratch/typeahead.ts): a line typed ahead
 * while a command runs (`term_exec` answered `running`, then `term_send text:"echo two"
 * until:"^two$"`). Whatever the send's wait does, reads must lose nothing: the send's output plus
 * the next `term_read mode:new` hold both the running command's last output (`one`, printed after
 * the send) and the typed line's (`two`). In dash the send ends at the running command's end mark
 * (`two` shares its row with the prompt, so `^two$` never matches); finishSend moved the client's
 * cursor to where the emulator was by then, past `two` already parsed: lost for every later read.
 * (The same property fails in bash/zsh/fish by another path, the late echo: see the report of
 * branch load-tries and scratch/typeahead-freq.sh.)
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

/** Long enough that the send surely happens while the first command still sleeps. */
const FIRST_COMMAND = "sleep 2; echo one";

async function typeAhead(shell: string): Promise<string> {
  const session = `ta-${shell}`;
  await host.open({ name: session, command: shell }, ctx);
  try {
    const first = await host.exec({ session, command: FIRST_COMMAND, timeout_ms: 300, max_tokens: 4000 }, ctx);
    expect(first.status).toBe("running");
    const send = await host.send({ session, text: "echo two", until: "^two$", wait_ms: 20_000, max_tokens: 4000 }, ctx);
    // Barrier: the typed line has run (its output and the next prompt are there) before the read.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const h = await host.read({ session, mode: "history", from: -3, max_tokens: 4000, wait_ms: 0 }, ctx);
      if (/two\n/.test(h.output) && h.state === "prompt") break;
      await Bun.sleep(50);
    }
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
