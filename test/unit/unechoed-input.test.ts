/**
 * Typed text the program has not been handed yet (issue 36 item 3, found by the REPL oracle
 * under load): a pty's input passes a kernel worker before the program can read it, and all that
 * while the program sits in read(2) of the tty. The kernel's "waits for the terminal" then
 * ended term_send with nothing; redis-cli's answer came with the next input, and every answer
 * after it was one behind. A scripted program here echoes and answers only a while after the
 * write, as the kernel worker on a busy machine did, and reads the tty all along.
 */
import { expect, test } from "bun:test";
import { sendInput } from "../../src/session/send.ts";
import { Session } from "../../src/session/session.ts";
import { FAKE_NONCE, FakeBackend } from "../helpers/fake-backend.ts";
import type { TtyWait } from "../../src/util/tty-wait.ts";

/** How late the program gets the input: far past the tty check's quiet and confirmation. */
const HANDED_OVER_AFTER_MS = 300;

/** A line editor in read(2) of the tty, whatever its input queue holds. */
class ReadingProgram extends FakeBackend {
  foregroundTtyWait(): TtyWait {
    return "read";
  }
}

test.if(process.platform === "linux")("typed text not yet echoed: the wait goes on until the answer", async () => {
  const fake = new ReadingProgram();
  const session = new Session({
    id: "repl",
    kind: "local",
    target: "redis-cli",
    backend: fake,
    cols: 80,
    rows: 24,
    integration: "none",
    family: "bash",
    nonce: FAKE_NONCE,
    persistent: false,
  });
  fake.emit("db> ");
  fake.onInput = (input) => {
    if (!input.endsWith("\r")) return;
    setTimeout(() => fake.emit(`${input.slice(0, -1)}\r\n(nil)\r\ndb> `), HANDED_OVER_AFTER_MS);
  };
  const r = await sendInput(session, { text: "GET k8", wait_ms: 5000, max_tokens: 4000 }, "client");
  expect(r).toMatchObject({ state: "prompt", via: "prompt", output: "(nil)\ndb>" });
});
