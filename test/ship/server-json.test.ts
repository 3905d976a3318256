/**
 * server.json, the MCP Registry's entry for ptyhub, agrees with what is published: the npm
 * package's name and version, and the `mcpName` the registry checks in that package (package.json;
 * the launcher package made from it is checked in npm-packages.test.ts). The registry's own limits
 * (one slash in the name, a description of at most 100 characters, a transport per package) hold.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./helpers.ts";

const serverJson = JSON.parse(readFileSync(join(REPO_ROOT, "server.json"), "utf8"));
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
/** The registry rejects longer descriptions. */
const MAX_DESCRIPTION_CHARS = 100;

describe("server.json", () => {
  test("names the npm package at this version, with the mcpName package.json claims", () => {
    expect(serverJson.name).toBe(pkg.mcpName);
    expect(serverJson.name).toMatch(/^io\.github\.[^/]+\/[^/]+$/);
    expect(serverJson.version).toBe(pkg.version);
    expect(serverJson.packages).toEqual([
      expect.objectContaining({
        registryType: "npm",
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: "stdio" },
      }),
    ]);
  });

  test("stays within the registry's limits", () => {
    expect(serverJson.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/[\d-]+\/server\.schema\.json$/,
    );
    expect(serverJson.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
  });
});
