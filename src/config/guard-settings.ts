/** The guard's settings: on/off, built-in rules turned off, rules added (README "Guard"). */
import { z } from "zod";
import { GUARD_RULE_IDS } from "./guard-rule-ids.ts";

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
      ctx.addIssue({
        code: "custom",
        path: [i],
        message: `no guard rule is called "${id}" (rules: ${known.join(", ")})`,
      });
    }
  });
}

export const GuardConfigSchema = z
  .strictObject({
    /** false turns the guard off entirely (a human's decision: only the settings can say it). */
    enabled: z.boolean().default(true),
    /** Ids of built-in rules to turn off (README lists them). */
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
      .default([]),
  })
  .default({ enabled: true, disable: [], rules: [] });
