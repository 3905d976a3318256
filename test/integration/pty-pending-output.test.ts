/**
 * pendingOutput on a real PTY master: what the program wrote and nobody read yet. A wait that
 * looks at the program's process (idle: settled?) also looks here, so output written just before
 * the program went idle is not outrun (issue 21: a REPL's prompt still in the PTY on a loaded machine).
 */
import { expect, test } from "bun:test";
import { closeSync, readSync, writeSync } from "node:fs";
import { pendingOutput, openPty } from "../../src/backend/local/pty/open.ts";

test("pendingOutput counts what the slave side wrote until the master reads it", () => {
  const pty = openPty(80, 24);
  try {
    expect(pendingOutput(pty.master)).toBe(0);
    writeSync(pty.slave, ">>> ");
    // The line discipline hands the bytes over asynchronously (a kernel work item): look until it did.
    let waiting = 0;
    for (let i = 0; i < 1000 && waiting === 0; i++) waiting = pendingOutput(pty.master);
    expect(waiting).toBe(4);
    const buf = Buffer.alloc(16);
    expect(readSync(pty.master, buf)).toBe(4);
    expect(pendingOutput(pty.master)).toBe(0);
  } finally {
    closeSync(pty.slave);
    closeSync(pty.master);
  }
});
