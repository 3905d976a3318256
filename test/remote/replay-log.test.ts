/**
 * The daemon's replay log, which makes a reattach at a byte offset exactly-once: the bytes after
 * any offset it still holds, whole; an offset it no longer holds starts at the oldest byte kept
 * (and says so by the offset returned), never a byte twice.
 */
import { describe, expect, test } from "bun:test";
import { ReplayLog } from "../../src/daemon/replay-log.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("ReplayLog", () => {
  test("returns exactly the bytes after an offset, across chunk boundaries", () => {
    const log = new ReplayLog(100);
    log.append(bytes("abc"));
    log.append(bytes("defg"));
    log.append(bytes("h"));
    expect(log.end).toBe(108);
    expect(text(log.since(100).bytes)).toBe("abcdefgh");
    expect(text(log.since(104).bytes)).toBe("efgh");
    expect(log.since(104).offset).toBe(104);
    expect(log.since(108).bytes.length).toBe(0);
  });

  test("keeps at most its bound, dropping whole old chunks, and starts an old offset at the oldest kept byte", () => {
    const log = new ReplayLog(0, 10);
    log.append(bytes("0123"));
    log.append(bytes("4567"));
    log.append(bytes("89ab"));
    expect(log.start).toBe(4);
    const r = log.since(1);
    expect(r.offset).toBe(4);
    expect(text(r.bytes)).toBe("456789ab");
  });

  test("keeps a copy: a reused buffer does not change what was logged", () => {
    const log = new ReplayLog(0);
    const buf = bytes("xyz");
    log.append(buf);
    buf.set(bytes("!!!"));
    expect(text(log.since(0).bytes)).toBe("xyz");
  });

  test("an offset beyond the end returns nothing from the end", () => {
    const log = new ReplayLog(0);
    log.append(bytes("abc"));
    expect(log.since(50)).toEqual({ offset: 3, bytes: new Uint8Array(0) });
  });
});
