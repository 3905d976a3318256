/**
 * An endless OSC or DCS string cannot fill memory (issue 23, item 8): xterm (a real headless one,
 * through the Emulator) gets at most MAX_STRING_BYTES of a string's payload, the rest is dropped up
 * to the terminator, and what follows is parsed as before. Chunk boundaries anywhere change nothing.
 */
import { describe, expect, test } from "bun:test";
import { Emulator } from "../../src/terminal/emulator.ts";
import { MAX_STRING_BYTES, StringBound } from "../../src/terminal/string-bound.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Feeds `text` in chunks of `size` bytes through one filter; returns what came out. */
function through(text: string, size: number): string {
  const bound = new StringBound();
  const bytes = enc.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += size) out += dec.decode(bound.apply(bytes.subarray(i, i + size)));
  return out;
}

describe("StringBound", () => {
  test("text and short strings pass unchanged, in any chunking", () => {
    const text =
      "plain \x1b[1mbold\x1b[0m \x1b]2;a title\x07 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bPq$q\x1b\\ end";
    for (const size of [1, 2, 3, 7, 1000]) expect(through(text, size)).toBe(text);
  });

  test("an overlong payload is cut at the bound, ended with ST, and the rest dropped up to its terminator", () => {
    // The payload is everything after ESC ]: the OSC's number and ; count too.
    const body = `2;${"a".repeat(MAX_STRING_BYTES * 3)}`;
    const cut = `before\x1b]${body.slice(0, MAX_STRING_BYTES)}\x1b\\after\x1b[1mx`;
    for (const end of ["\x07", "\x1b\\", "\x18"])
      for (const size of [1, 4096, 1 << 20]) expect(through(`before\x1b]${body}${end}after\x1b[1mx`, size)).toBe(cut);
  });

  test("a new sequence that ends a dropped string is kept", () => {
    const body = `0;${"c".repeat(MAX_STRING_BYTES + 10)}`;
    const out = through(`\x1b]${body}\x1b[31mred`, 3);
    expect(out).toBe(`\x1b]${body.slice(0, MAX_STRING_BYTES)}\x1b\\\x1b[31mred`);
  });
});

describe("the emulator", () => {
  test("our OSC handler never sees more than the bound, and the screen goes on after the string", () => {
    const seen: number[] = [];
    const em = new Emulator({ cols: 80, rows: 10, oscId: 6973, onOsc: ({ data }) => seen.push(data.length) });
    em.ingest(enc.encode("\x1b]6973;"));
    const chunk = enc.encode("z".repeat(64 * 1024));
    // 8 MiB of payload without an end: xterm would buffer up to 10 MB of it.
    for (let i = 0; i < 128; i++) em.ingest(chunk);
    em.ingest(enc.encode("\x07visible-after"));
    // One call, with the bound's worth of payload less the "6973;" xterm takes off the front.
    expect(seen).toEqual([MAX_STRING_BYTES - "6973;".length]);
    expect(em.screenLines().join("\n")).toContain("visible-after");
    em.dispose();
  });
});
