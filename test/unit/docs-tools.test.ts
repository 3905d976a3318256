/**
 * The tools as the docs give them against the tools as clients see them (tools/list, generated
 * from the zod schemas): the README's table and docs/tools.md name the registered tools in order,
 * and docs/tools.md's "Parameters" table of each tool names exactly its input parameters.
 */
import { describe, expect, test } from "bun:test";
import { computeToolListing } from "../../src/mcp/compute-listing.ts";
import { firstColumn, readDoc, section } from "../helpers/markdown.ts";

const listing = computeToolListing();
const toolNames = listing.map((t) => t.name);
const toolsDoc = readDoc("docs/tools.md");

describe("docs/tools.md and the README against the registered tools", () => {
  test("the README's tool table names every tool, in tools/list's order", () => {
    expect(firstColumn(section(readDoc("README.md"), "## A first session"), "tool")).toEqual(toolNames);
  });

  test("docs/tools.md's overview names every tool, in tools/list's order", () => {
    expect(firstColumn(section(toolsDoc, "## The tools"), "tool")).toEqual(toolNames);
  });

  test("docs/tools.md has a parameter table for each tool, and no other", () => {
    const params = section(toolsDoc, "## Parameters");
    const documented = [...params.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1]);
    expect(documented).toEqual(toolNames);
  });

  for (const tool of listing) {
    test(`${tool.name}: the documented parameters are its input schema's`, () => {
      const table = section(section(toolsDoc, "## Parameters"), `### \`${tool.name}\``);
      const schema = tool.inputSchema as { properties?: Record<string, unknown> };
      expect(firstColumn(table, "parameter")).toEqual(Object.keys(schema.properties ?? {}));
    });
  }
});
