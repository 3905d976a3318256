/** The guard's settings: on/off, built-in rules turned off, rules added (docs/safety.md, Guard). */
import { z } from "zod";
import { GUARD_RULE_IDS } from "./guard-rule-ids.ts";
import { closestWord } from "../util/did-you-mean.ts";

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** A rule id `disable` names must exist: a misspelt one would silently leave the rule on. */
function knownRuleIds(ids: string[], ctx: z.RefinementCtx): void {
  const known: readonly string[] = GUARD_RULE_IDS;
  ids.forEach((id, i) => {
    if (!known.includes(id)) {
      const guess = closestWord(id, known);
      ctx.addIssue({
        code: "custom",
        path: [i],
        message:
          `no guard rule is called "${id}"${guess === undefined ? "" : ` — did you mean "${guess}"?`} ` +
          `(rules: ${known.join(", ")})`,
      });
    }
  });
}

/**
 * A rule added may not take a built-in rule's id: findings name rules by id, so `disable` and the
 * reasons shown would no longer say which of the two stopped a line.
 */
function ownRuleIds(rules: Array<{ id: string }>, ctx: z.RefinementCtx): void {
  const builtin: readonly string[] = GUARD_RULE_IDS;
  rules.forEach((rule, i) => {
    if (builtin.includes(rule.id)) {
      ctx.addIssue({
        code: "custom",
        path: [i, "id"],
        message: `"${rule.id}" is a built-in rule's id; give the rule its own id`,
      });
    }
  });
}

export const GuardConfigSchema = z
  .strictObject({
    /** false turns the guard off entirely (a human's decision: only the settings can say it). */
    enabled: z.boolean().default(true),
    /** Ids of built-in rules to turn off (docs/safety.md lists them). */
    disable: z.array(z.string().min(1)).default([]).superRefine(knownRuleIds),
    /** Rules added: a regex over each program's words (wrappers peeled, quotes removed, joined by spaces). */
    rules: z
      .array(
        z.strictObject({
          id: z.string().min(1).max(64),
          pattern: z.string().min(1).refine(compiles, "not a valid regular expression"),
          reason: z.string().min(1).max(500),
        }),
      )
      .default([])
      .superRefine(ownRuleIds),
  })
  .default({ enabled: true, disable: [], rules: [] });
