/**
 * pendingOutput on a real PTY master: what the program wrote and nobody read yet. A wait that
 * looks at the program's process (idle: settled?) also looks here, so output written just before
 * the program went idle is not outrun (issue 21: a REPL's prompt still in the PTY on a loaded machine).
 */
import { expect, test } from "bun:test";
import { closeSync, readSync, writeSync } from "node:fs";
import { libc } from "../../src/backend/local/pty/libc.ts";
import { pendingOutput, openPty } from "../../src/backend/local/pty/open.ts";
import { waitFor } from "../helpers/wait.ts";

/** The kernel work item that hands the bytes over may wait this long for a CPU on a busy machine. */
const HANDOVER_BOUND_MS = 10_000;
/** Writes checked one by one by readableNow: enough that a hand-over still pending would show. */
const ROUNDS = 500;

test("pendingOutput counts what the slave side wrote until the master reads it", async () => {
  const pty = openPty(80, 24);
  try {
    expect(pendingOutput(pty.master)).toBe(0);
    writeSync(pty.slave, ">>> ");
    // The line discipline hands the bytes over asynchronously (a kernel work item): look until it
    // did. Seen under load: a thousand back-to-back looks (1 ms) came before it.
    // waitFor takes 0 for an answer: "nothing yet" must be null.
    const waiting = await waitFor(
      () => {
        const n = pendingOutput(pty.master);
        return n > 0 ? n : null;
      },
      HANDOVER_BOUND_MS,
      "the slave's bytes on the master",
    );
    expect(waiting).toBe(4);
    const buf = Buffer.alloc(16);
    expect(readSync(pty.master, buf)).toBe(4);
    expect(pendingOutput(pty.master)).toBe(0);
  } finally {
    closeSync(pty.slave);
    closeSync(pty.master);
  }
});

test.skipIf(process.platform !== "linux")(
  "readableNow sees what the slave side wrote at once, before the kernel's hand-over ran (end-agreement's drain)",
  () => {
    const pty = openPty(80, 24);
    try {
      expect(libc.readableNow(pty.master)).toBe(false);
      // poll runs the pending hand-over itself (n_tty_poll), so no look can come before it; each
      // round checks right after the write, where pendingOutput above may still say 0.
      const buf = Buffer.alloc(64);
      for (let round = 0; round < ROUNDS; round++) {
        writeSync(pty.slave, `round ${round}\n`);
        expect(libc.readableNow(pty.master)).toBe(true);
        while (libc.readableNow(pty.master)) readSync(pty.master, buf);
        expect(pendingOutput(pty.master)).toBe(0);
      }
    } finally {
      closeSync(pty.slave);
      closeSync(pty.master);
    }
  },
);
