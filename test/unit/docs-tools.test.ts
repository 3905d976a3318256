/**
 * The tools as the docs give them against the tools as clients see them (tools/list, generated
 * from the zod schemas): the README's table and docs/tools.md name the model's tools in order,
 * and docs/tools.md's "Parameters" table of each tool names exactly its input parameters. The MCP
 * Apps view's own tools (app-only: no model ever sees them) are in docs/web-view.md instead, each
 * with its parameters.
 */
import { describe, expect, test } from "bun:test";
import { computeToolListing } from "../../src/mcp/compute-listing.ts";
import { isAppOnly } from "../../src/mcp/app-visibility.ts";
import { column, firstColumn, readDoc, section } from "../helpers/markdown.ts";

const everyTool = computeToolListing();
/** What a model is given: every tool but the view's own. */
const listing = everyTool.filter((t) => !isAppOnly(t));
const viewTools = everyTool.filter(isAppOnly);
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

describe("docs/web-view.md against the MCP Apps view's own tools", () => {
  const table = section(readDoc("docs/web-view.md"), "### The view's own tools");

  test("they are there, and only there", () => {
    expect(viewTools.length).toBeGreaterThan(0);
    expect(firstColumn(table, "tool")).toEqual(viewTools.map((t) => t.name));
    for (const t of viewTools) expect(toolsDoc).not.toContain(`\`${t.name}\``);
  });

  test("each names its input parameters", () => {
    const documented = column(table, "tool", 1).map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    const schemas = viewTools.map((t) => Object.keys((t.inputSchema as { properties?: object }).properties ?? {}));
    expect(documented).toEqual(schemas);
  });
});
