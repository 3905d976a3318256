/** term_read mode:history over lines the history already dropped: it says they are gone. */
import { describe, expect, test } from "bun:test";
import { readSession } from "../../src/session/read.ts";
import { HISTORY_MAX_ROWS } from "../../src/terminal/history.ts";
import { fakeSession } from "../helpers/fake-backend.ts";

describe("history reads over dropped lines", () => {
  test("dropped > 0, the output names the lost range, and truncated never points at it", async () => {
    const { session, fake } = fakeSession();
    const lines = HISTORY_MAX_ROWS + 5000;
    fake.emit(Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join("\r\n") + "\r\n");
    const firstKept = session.emulator.history.firstLineNo;
    expect(firstKept).toBeGreaterThan(1);

    const gone = await readSession(session, { mode: "history", from: 1, to: 10, max_tokens: 4000 }, "c");
    expect(gone.dropped).toBeGreaterThan(0);
    expect(gone.output).toContain("(1–10) were dropped");
    expect(gone.truncated).toBeNull();

    // A range that starts in the dropped part and reaches kept lines: the kept ones are shown.
    const across = await readSession(
      session,
      { mode: "history", from: firstKept - 3, to: firstKept + 1, max_tokens: 4000 },
      "c",
    );
    expect(across.dropped).toBeGreaterThan(0);
    expect(across.output.split("\n").slice(1)).toEqual([`line ${firstKept}`, `line ${firstKept + 1}`]);

    // A budget cut that spans the dropped range names only lines that can still be fetched.
    const all = await readSession(session, { mode: "history", max_tokens: 200 }, "c");
    expect(all.truncated).not.toBeNull();
    expect(all.truncated!.from_line).toBeGreaterThanOrEqual(firstKept);
    const fetched = await readSession(
      session,
      { mode: "history", from: all.truncated!.from_line, to: all.truncated!.from_line, max_tokens: 4000 },
      "c",
    );
    expect(fetched.dropped).toBe(0);
    expect(fetched.output).toMatch(/^line \d+$/);

    // Lines still kept read as before: nothing dropped.
    const kept = await readSession(session, { mode: "history", from: -2, max_tokens: 4000 }, "c");
    expect(kept.dropped).toBe(0);
    session.dispose();
  });
});
