/**
 * The JSON Schema validator of the SDK's Server, made on first use. Left to itself the Server
 * builds an Ajv instance in its constructor (meta-schemas compiled, formats added: 2–3 ms of every
 * start, measured in the compiled binary), yet it only needs one to check what a human answers to
 * an elicitation. The validator made then is the SDK's own default, so the checks are the same.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

export class OnDemandSchemaValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | null = null;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.ajv ??= new AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}
