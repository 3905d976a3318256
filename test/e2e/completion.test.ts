/**
 * completion/complete for the resource templates' `{session}` argument, through the real SDK
 * client: the names of the sessions there are that start with what was typed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

let server: McpClient;

beforeAll(async () => {
  server = await startMcp({ transport: "in-process" });
  for (const name of ["build", "bugfix", "other"]) await server.ok("term_open", { name, persistent: false });
});
afterAll(() => server.close());

describe("completion/complete", () => {
  test("the server offers completions", () => {
    expect(server.client.getServerCapabilities()?.completions).toEqual({});
  });

  test("a template's {session} completes to the sessions starting with the typed prefix", async () => {
    for (const uri of ["ptyhub://sessions/{session}/screen", "ptyhub://sessions/{session}/history"]) {
      const r = await server.client.complete({
        ref: { type: "ref/resource", uri },
        argument: { name: "session", value: "bu" },
      });
      expect(r.completion.values.sort()).toEqual(["bugfix", "build"]);
      expect(r.completion.hasMore).toBe(false);
    }
    const all = await server.client.complete({
      ref: { type: "ref/resource", uri: "ptyhub://sessions/{session}/screen" },
      argument: { name: "session", value: "" },
    });
    expect(all.completion.values.sort()).toEqual(["bugfix", "build", "other"]);
  });

  test("other references and arguments complete to nothing", async () => {
    const r = await server.client.complete({
      ref: { type: "ref/resource", uri: "ptyhub://elsewhere/{x}" },
      argument: { name: "x", value: "b" },
    });
    expect(r.completion.values).toEqual([]);
  });
});
