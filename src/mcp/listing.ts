/**
 * What tools/list answers: each tool's name, description, annotations and JSON Schemas, generated
 * from its zod schemas (src/mcp/compute-listing.ts). Generating them costs ~10 ms, and the tool
 * definitions they come from more again, so build.ts computes the listing once at build time and
 * stamps it into the binary (PTYHUB_TOOL_LISTING): a binary answers tools/list without loading
 * the tool definitions at all. From source it is computed on first use.
 */
import type { ListedTool } from "./compute-listing.ts";

declare const PTYHUB_TOOL_LISTING: string | undefined;

let cached: ListedTool[] | null = null;

export async function toolListing(): Promise<ListedTool[]> {
  if (cached) return cached;
  if (typeof PTYHUB_TOOL_LISTING === "string") cached = JSON.parse(PTYHUB_TOOL_LISTING) as ListedTool[];
  else cached = (await import("./compute-listing.ts")).computeToolListing();
  return cached;
}

/**
 * The listing as a client gets it: without an outputSchema for clients that read the text form,
 * since with one they hand the model the JSON instead of the text rendering.
 */
export async function toolsForForm(form: "text" | "structured"): Promise<Omit<ListedTool, "outputSchema">[]> {
  const listing = await toolListing();
  return form === "text" ? listing.map(({ outputSchema: _omitted, ...t }) => t) : listing;
}
