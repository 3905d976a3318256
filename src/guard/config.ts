/** The guard's settings: on/off, built-in rules turned off, rules added (README "Guard"). */
import { z } from "zod";

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

export const GuardConfigSchema = z
  .object({
    /** false turns the guard off entirely (a human's decision: only the settings can say it). */
    enabled: z.boolean().default(true),
    /** Ids of built-in rules to turn off (README lists them). */
    disable: z.array(z.string().min(1)).default([]),
    /** Rules added: a regex over each program's words (wrappers peeled, quotes removed, joined by spaces). */
    rules: z
      .array(
        z.object({
          id: z.string().min(1).max(64),
          pattern: z.string().min(1).refine(compiles, "not a valid regular expression"),
          reason: z.string().min(1).max(500),
        }),
      )
      .default([]),
  })
  .default({ enabled: true, disable: [], rules: [] });
