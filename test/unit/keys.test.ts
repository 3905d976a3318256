import { describe, expect, test } from "bun:test";
import { encodeKey, encodeKeys } from "../../src/terminal/keys.ts";
import { AppError } from "../../src/errors.ts";

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

  test("unknown names are INVALID_ARGUMENT with a hint, and a list fails as a whole", () => {
    for (const bad of ["ctrl+", "hyper+x", "f13", "ctrl+é", "", "enterr"]) {
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
