/**
 * Read cursors under delivery tickets (src/session/delivery.ts): a read made in the daemon moves
 * its reader's cursor only once the answer is confirmed delivered; until then, the reader taking
 * over (an MCP server started after a kill -9) reads that output again, labelled as a repeat.
 */
import { describe, expect, test } from "bun:test";
import { DeliveryTicket, withTicket } from "../../src/session/delivery.ts";
import { readSession } from "../../src/session/read.ts";
import { fakeSession } from "../helpers/fake-backend.ts";

const NEW = { mode: "new" as const, wait_ms: 0, max_tokens: 4000 };

/** A fake shell whose first prompt has been read (by a reader of no interest here). */
async function readSessionAtPrompt() {
  const made = fakeSession();
  await readSession(made.session, NEW, "setup");
  return made;
}

describe("read cursors and delivery tickets", () => {
  test("an unconfirmed read comes again for the next reader, labelled; a confirmed one does not", async () => {
    const { session, fake } = await readSessionAtPrompt();
    fake.emit("one\r\ntwo\r\n");
    const lost = new DeliveryTicket();
    const first = await withTicket(lost, () => readSession(session, NEW, "killed-server"));
    expect(first.output).toBe("one\ntwo");
    // The server died before confirming: the next one reads the same lines, said to be a repeat.
    fake.emit("three\r\n");
    const ticket = new DeliveryTicket();
    const next = await withTicket(ticket, () => readSession(session, NEW, "next-server"));
    const lines = next.output.split("\n");
    expect(lines[0]).toMatch(/^\[… lines 1–2 may repeat: .*not confirmed delivered/);
    expect(lines.slice(1)).toEqual(["one", "two", "three"]);
    ticket.confirm();
    // Confirmed: read once, no repeat, for this reader and for one taking over from it.
    fake.emit("four\r\n");
    expect((await readSession(session, NEW, "next-server")).output).toBe("four");
    fake.emit("five\r\n");
    expect((await readSession(session, NEW, "third-server")).output).toBe("five");
    session.dispose();
  });

  test("without a ticket (an in-process host) the cursor moves at once", async () => {
    const { session, fake } = await readSessionAtPrompt();
    fake.emit("alpha\r\n");
    expect((await readSession(session, NEW, "a")).output).toBe("alpha");
    fake.emit("beta\r\n");
    expect((await readSession(session, NEW, "b")).output).toBe("beta");
    session.dispose();
  });

  test("a late confirmation of a replaced move commits nothing; the latest one commits all", async () => {
    const { session, fake } = await readSessionAtPrompt();
    fake.emit("x1\r\n");
    const t1 = new DeliveryTicket();
    await withTicket(t1, () => readSession(session, NEW, "c"));
    fake.emit("x2\r\n");
    const t2 = new DeliveryTicket();
    const second = await withTicket(t2, () => readSession(session, NEW, "c"));
    // The first answer was never confirmed, so the same reader gets its lines again, labelled.
    expect(second.output.split("\n").slice(1)).toEqual(["x1", "x2"]);
    t1.confirm();
    t2.confirm();
    fake.emit("x3\r\n");
    expect((await readSession(session, NEW, "c")).output).toBe("x3");
    session.dispose();
  });
});
