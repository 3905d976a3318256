/** The shell's questions cut out of its output (src/session/question-marks.ts). */
import { describe, expect, test } from "bun:test";
import { QuestionCutter } from "../../src/session/question-marks.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("question marks", () => {
  const cutter = new QuestionCutter("n0nce");
  test("a question between the halves of a character is cut out: the character joins up", () => {
    const bytes = new Uint8Array([0xe8, 0xaa, ...enc("\x1b]6973;n0nce;J;12345678;87654321;sleep 1\x07"), 0x9e]);
    const cut = cutter.cut(bytes);
    expect(cut?.payloads).toEqual(["n0nce;J;12345678;87654321;sleep 1"]);
    expect(dec(cut?.rest ?? new Uint8Array())).toBe("語");
  });
  test("other marks, other nonces and a question not ended in this read stay", () => {
    expect(cutter.cut(enc("a\x1b]6973;n0nce;D;0;/\x07b"))).toBeNull();
    expect(cutter.cut(enc("\x1b]6973;other;J;12345678;87654321;ls\x07"))).toBeNull();
    expect(cutter.cut(enc("x\x1b]6973;n0nce;J;12345678;87654321;l"))).toBeNull();
  });
  test("two questions in one read", () => {
    const cut = cutter.cut(enc("a\x1b]6973;n0nce;J;1;2;x\x07b\x1b]6973;n0nce;J;3;4;y\x07c"));
    expect(cut?.payloads).toEqual(["n0nce;J;1;2;x", "n0nce;J;3;4;y"]);
    expect(dec(cut?.rest ?? new Uint8Array())).toBe("abc");
  });
});
