/**
 * The SDK Server's JSON Schema validator, made on first use (src/mcp/schema-validator.ts): it
 * still checks elicitation answers as the SDK's default would, accepting what fits the requested
 * schema and refusing what does not.
 */
import { describe, expect, test } from "bun:test";
import { OnDemandSchemaValidator } from "../../src/mcp/schema-validator.ts";

/** The shape of the guard's question to a human (src/guard/guard.ts asks for `allow`). */
const ALLOW_SCHEMA = {
  type: "object" as const,
  properties: { allow: { type: "boolean" as const } },
  required: ["allow"],
};

describe("OnDemandSchemaValidator", () => {
  test("accepts an answer that fits the requested schema", () => {
    const check = new OnDemandSchemaValidator().getValidator<{ allow: boolean }>(ALLOW_SCHEMA);
    expect(check({ allow: true })).toEqual({ valid: true, data: { allow: true }, errorMessage: undefined });
  });

  test("refuses one that does not, saying why", () => {
    const validator = new OnDemandSchemaValidator();
    const check = validator.getValidator(ALLOW_SCHEMA);
    const wrongType = check({ allow: "yes" });
    expect(wrongType.valid).toBe(false);
    expect(wrongType.errorMessage).toContain("boolean");
    expect(validator.getValidator(ALLOW_SCHEMA)({}).valid).toBe(false);
  });
});
