/**
 * tools/list computed from the tools' zod schemas: each tool's name, description, annotations and
 * JSON Schemas. build.ts runs this once and stamps the result into the binary; from source it runs
 * on the first tools/list (src/mcp/listing.ts). Kept apart from listing.ts so that a binary never
 * loads the tool definitions just to list them.
 */
import { z } from "zod";
import { ERROR_CODES } from "../api/errors.ts";
import { TOOLS } from "./tools/all-tools.ts";
import { APP_ONLY_META } from "./app-visibility.ts";

/** One tool as tools/list shows it. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
  /** MCP Apps: `ui.visibility: ["app"]` on the view's own tools (app-view.ts). */
  _meta?: Record<string, unknown>;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

/**
 * The output schema as declared: the tool's result, or the error shape every tool may return
 * (`{ error: { code, message, hint, retryable } }`, with isError). Clients such as the MCP SDK
 * validate structuredContent against outputSchema even on errors, so both must be in it.
 */
function outputSchema(schema: z.ZodType, errorSchema: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", anyOf: [jsonSchema(schema, "output"), errorSchema] };
}

/** Computes the listing from the zod schemas (build time, or first use when running from source). */
export function computeToolListing(): ListedTool[] {
  const errorSchema = jsonSchema(
    z.strictObject({
      error: z.strictObject({
        code: z.enum(ERROR_CODES),
        message: z.string(),
        hint: z.string(),
        retryable: z.boolean(),
      }),
    }),
    "output",
  );
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input, "input"),
    outputSchema: outputSchema(t.output, errorSchema),
    annotations: { title: t.title, ...t.annotations },
    ...(t.appOnly ? { _meta: APP_ONLY_META } : {}),
  }));
}
