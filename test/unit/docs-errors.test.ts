/**
 * docs/tools.md's error table against the error codes a tool result can carry
 * (src/api/errors.ts): every code is explained, in the contract's order, and no other.
 */
import { describe, expect, test } from "bun:test";
import { ERROR_CODES } from "../../src/api/errors.ts";
import { firstColumn, readDoc, section } from "../helpers/markdown.ts";

describe("docs/tools.md against the error codes", () => {
  test("the Errors table lists every code, in order, and no other", () => {
    const errors = section(readDoc("docs/tools.md"), "## Errors");
    expect(firstColumn(errors, "code")).toEqual([...ERROR_CODES]);
  });
});
