import { describe, expect, test } from "bun:test";
import { encodeKey, encodeKeys } from "../../src/terminal/keys.ts";
import { AppError } from "../../src/api/errors.ts";

describe("named keys", () => {
  test("control keys in every accepted spelling", () => {
    for (const name of ["ctrl+c", "CTRL+C", "C-c", "^C", "control-c"]) expect(encodeKey(name)).toBe("\x03");
    expect(encodeKey("ctrl+d")).toBe("\x04");
    expect(encodeKey("ctrl+\\")).toBe("\x1c");
    expect(encodeKey("ctrl+[")).toBe("\x1b");
  });

  test("plain named keys", () => {
    expect(encodeKey("enter")).toBe("\r");
    expect(encodeKey("Escape")).toBe("\x1b");
    expect(encodeKey("tab")).toBe("\t");
    expect(encodeKey("backspace")).toBe("\x7f");
    expect(encodeKey("f5")).toBe("\x1b[15~");
    expect(encodeKey("F1")).toBe("\x1bOP");
    expect(encodeKey("pageup")).toBe("\x1b[5~");
    expect(encodeKey("delete")).toBe("\x1b[3~");
  });

  test("cursor keys follow the application cursor mode (DECCKM)", () => {
    expect(encodeKey("up")).toBe("\x1b[A");
    expect(encodeKey("up", { applicationCursorKeys: true })).toBe("\x1bOA");
    expect(encodeKey("left", { applicationCursorKeys: true })).toBe("\x1bOD");
  });

  test("modifiers", () => {
    expect(encodeKey("alt+x")).toBe("\x1bx");
    expect(encodeKey("M-x")).toBe("\x1bx");
    expect(encodeKey("shift+tab")).toBe("\x1b[Z");
    expect(encodeKey("ctrl+left")).toBe("\x1b[1;5D");
    expect(encodeKey("shift+up")).toBe("\x1b[1;2A");
    expect(encodeKey("ctrl+delete")).toBe("\x1b[3;5~");
  });

  test("page keys in every common spelling (issue 22)", () => {
    for (const name of ["pgup", "pageup", "page_up", "page-up", "PageUp", "prior", "Page_Up"])
      expect(encodeKey(name)).toBe("\x1b[5~");
    for (const name of ["pgdn", "pgdown", "pagedown", "page_down", "page-down", "next", "PAGE_DOWN"])
      expect(encodeKey(name)).toBe("\x1b[6~");
    expect(encodeKey("shift+page_up")).toBe("\x1b[5;2~");
    expect(encodeKey("ctrl-page-down")).toBe("\x1b[6;5~");
    for (const name of ["ArrowUp", "arrow_up", "UpArrow", "up"]) expect(encodeKey(name)).toBe("\x1b[A");
    expect(encodeKey("shift+ArrowLeft")).toBe("\x1b[1;2D");
    expect(encodeKey("backtab")).toBe("\x1b[Z");
  });

  test("every modifier reaches the program, in xterm's encodings (issue 22)", () => {
    expect(encodeKey("shift+f1")).toBe("\x1b[1;2P");
    expect(encodeKey("shift+f2")).toBe("\x1b[1;2Q");
    expect(encodeKey("ctrl+f3")).toBe("\x1b[1;5R");
    expect(encodeKey("alt+shift+f4")).toBe("\x1b[1;4S");
    expect(encodeKey("shift+f5")).toBe("\x1b[15;2~");
    expect(encodeKey("ctrl+alt+f12")).toBe("\x1b[24;7~");
    expect(encodeKey("shift+home")).toBe("\x1b[1;2H");
    expect(encodeKey("ctrl+end", { applicationCursorKeys: true })).toBe("\x1b[1;5F");
    // Keys whose plain byte has no room for the modifier: xterm's modifyOtherKeys form.
    expect(encodeKey("shift+enter")).toBe("\x1b[27;2;13~");
    expect(encodeKey("ctrl+enter")).toBe("\x1b[27;5;13~");
    expect(encodeKey("ctrl+tab")).toBe("\x1b[27;5;9~");
    expect(encodeKey("ctrl+shift+tab")).toBe("\x1b[27;6;9~");
    expect(encodeKey("shift+escape")).toBe("\x1b[27;2;27~");
    expect(encodeKey("shift+backspace")).toBe("\x1b[27;2;127~");
    expect(encodeKey("shift+space")).toBe("\x1b[27;2;32~");
    expect(encodeKey("ctrl+shift+a")).toBe("\x1b[27;6;65~");
    // Those with a byte of their own keep it.
    expect(encodeKey("alt+enter")).toBe("\x1b\r");
    expect(encodeKey("alt+shift+tab")).toBe("\x1b\x1b[Z");
    expect(encodeKey("ctrl+space")).toBe("\x00");
    expect(encodeKey("ctrl+backspace")).toBe("\x08");
    expect(encodeKey("C-M-x")).toBe("\x1b\x18");
  });

  test("unknown names are INVALID_ARGUMENT with a hint, and a list fails as a whole", () => {
    for (const bad of ["ctrl+", "hyper+x", "f13", "ctrl+é", "", "enterr", "page_upp", "shift+"]) {
      let err: unknown;
      try {
        encodeKey(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("INVALID_ARGUMENT");
      expect((err as AppError).hint.length).toBeGreaterThan(10);
    }
    expect(() => encodeKeys(["ctrl+c", "nope"])).toThrow(AppError);
  });
});
