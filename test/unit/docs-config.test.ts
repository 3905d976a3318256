/**
 * docs/config.md against the config schema (src/config/config.ts): its tables name every setting
 * a config.json may hold, top level and inside `guard` and `audit`, and no key the strict schema
 * would refuse; and each PTYHUB_* variable it gives is the one that sets that setting.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ConfigSchema, ENV_KEYS } from "../../src/config/config.ts";
import { GuardConfigSchema } from "../../src/config/guard-settings.ts";
import { AuditConfigSchema } from "../../src/config/audit-settings.ts";
import { column, firstColumn, readDoc, section } from "../helpers/markdown.ts";

const doc = readDoc("docs/config.md");
const MAIN_TABLE = "setting";

/** The keys of an object schema behind its default, as a config file spells them. */
function keysOf(schema: z.ZodType): string[] {
  let inner = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodObject)) throw new Error("not an object schema");
  return Object.keys(inner.shape);
}

const sorted = (xs: string[]) => [...xs].sort();

describe("docs/config.md against the config schema", () => {
  test("the settings table names every top-level key, and no other", () => {
    expect(sorted(firstColumn(doc, MAIN_TABLE))).toEqual(sorted(keysOf(ConfigSchema)));
  });

  test("the guard table names every guard.… key", () => {
    expect(sorted(firstColumn(section(doc, "## `guard`"), "setting (`guard.…`)"))).toEqual(
      sorted(keysOf(GuardConfigSchema)),
    );
  });

  test("the audit table names every audit.… key", () => {
    expect(sorted(firstColumn(section(doc, "## `audit`"), "setting (`audit.…`)"))).toEqual(
      sorted(keysOf(AuditConfigSchema)),
    );
  });

  test("each row's variable is the one that sets that key, and every variable is given", () => {
    const variables = column(doc, MAIN_TABLE, 1);
    const documented: Record<string, string> = {};
    column(doc, MAIN_TABLE, 0).forEach((cell, i) => {
      const key = cell.match(/^`([^`]+)`/)?.[1];
      const variable = variables[i]?.match(/`(PTYHUB_[A-Z_]+)`/)?.[1];
      if (key && variable) documented[variable] = key;
    });
    expect(documented).toEqual(ENV_KEYS);
  });
});
