/**
 * The config's list of rule ids (src/config/guard-rule-ids.ts, what `guard.disable` may name) and
 * the guard's rules are one set: an id listed without a rule would be accepted and do nothing.
 */
import { describe, expect, test } from "bun:test";
import { GUARD_RULE_IDS } from "../../src/config/guard-rule-ids.ts";
import { BUILTIN_RULES } from "../../src/guard/rules.ts";
import { FORK_BOMB_RULE } from "../../src/guard/classify.ts";
import { STARTUP_ENV_RULE } from "../../src/guard/open-env.ts";

describe("guard rule ids", () => {
  test("every listed id has a rule, and every rule's id is listed once", () => {
    const ruleIds = [...BUILTIN_RULES.map((r) => r.id), FORK_BOMB_RULE, STARTUP_ENV_RULE];
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect([...ruleIds].sort()).toEqual([...GUARD_RULE_IDS].sort());
  });
});
