/**
 * docs/safety.md's rule table against the guard's rule ids (src/config/guard-rule-ids.ts, what
 * `guard.disable` may name; test/guard/rule-ids.test.ts ties them to the rules): a rule missing
 * from the table is one a human cannot learn of, an id in it that does not exist is one they
 * would try to turn off in vain.
 */
import { describe, expect, test } from "bun:test";
import { GUARD_RULE_IDS } from "../../src/config/guard-rule-ids.ts";
import { firstColumn, readDoc, section } from "../helpers/markdown.ts";

describe("docs/safety.md against the guard", () => {
  test("the rule table lists every built-in rule id once, and nothing else", () => {
    const guard = section(readDoc("docs/safety.md"), "## Guard: destructive commands need the human's yes");
    const ids = firstColumn(guard, "rule id");
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...GUARD_RULE_IDS].sort());
  });
});
