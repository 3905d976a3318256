/**
 * config.json as people write it: typos are errors naming the file, the key and what is allowed;
 * comments and trailing commas (JSONC) are fine; and a server whose configuration is wrong still
 * answers `initialize`, reports the problem in every tool result, and serves once it is fixed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { startMcp } from "../helpers/mcp-client.ts";

const root = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A config directory holding `text` as ptyhub/config.json; returns [XDG_CONFIG_HOME, the file]. */
function configWith(name: string, text: string): [string, string] {
  const dir = join(root, name);
  mkdirSync(join(dir, "ptyhub"), { recursive: true });
  const file = join(dir, "ptyhub", "config.json");
  writeFileSync(file, text);
  return [dir, file];
}

/** loadConfig with XDG_CONFIG_HOME pointing at `dir` (configDir() reads it from process.env). */
function loadFrom(dir: string, env: NodeJS.ProcessEnv = {}) {
  const prev = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = dir;
  try {
    return loadConfig({}, env);
  } finally {
    process.env.XDG_CONFIG_HOME = prev;
  }
}

describe("loadConfig", () => {
  test("JSONC: comments and trailing commas are accepted", () => {
    const [dir] = configWith("jsonc", `// wider terminals\n{\n  "cols": 100, /* and */\n  "rows": 30,\n}\n`);
    expect(loadFrom(dir)).toMatchObject({ cols: 100, rows: 30 });
  });

  test("an unknown key names the file, the key and the keys allowed", () => {
    const [dir, file] = configWith("typo", `{"colz": 100}`);
    expect(() => loadFrom(dir)).toThrow(ConfigError);
    expect(() => loadFrom(dir)).toThrow(`${file}: unknown key "colz" — did you mean "cols"? (allowed: max_sessions,`);
  });

  test("an unknown key inside a section, and an unknown guard rule id, are errors too", () => {
    const [guardTypo, file] = configWith("guard-typo", `{"guard": {"enabld": false}}`);
    expect(() => loadFrom(guardTypo)).toThrow(
      `${file}: unknown key "enabld" in "guard" — did you mean "enabled"? (allowed: enabled, disable, rules)`,
    );
    const [rule] = configWith("rule-typo", `{"guard": {"disable": ["rm-recursiv-root"]}}`);
    expect(() => loadFrom(rule)).toThrow(
      /guard\.disable\.0: no guard rule is called "rm-recursiv-root" — did you mean "rm-recursive-root"\? \(rules: /,
    );
    const [known] = configWith("rule-known", `{"guard": {"disable": ["rm-recursive-root"]}}`);
    expect(loadFrom(known).guard.disable).toEqual(["rm-recursive-root"]);
  });

  test("a key nothing resembles gets no suggestion", () => {
    const [dir] = configWith("far-typo", `{"zzzzzz": 1}`);
    expect(() => loadFrom(dir)).toThrow(/unknown key "zzzzzz" \(allowed: /);
  });

  test("a custom guard rule may not reuse a built-in rule's id", () => {
    const rule = { id: "rm-recursive-root", pattern: "^foo", reason: "mine" };
    const [dir, file] = configWith("rule-clash", JSON.stringify({ guard: { rules: [rule] } }));
    expect(() => loadFrom(dir)).toThrow(ConfigError);
    expect(() => loadFrom(dir)).toThrow(
      `${file}: guard.rules.0.id: "rm-recursive-root" is a built-in rule's id; give the rule its own id`,
    );
  });

  test("a bad value from the environment names the variable, not the file", () => {
    const [dir] = configWith("env", `{}`);
    expect(() => loadFrom(dir, { PTYHUB_COLS: "3" })).toThrow(/environment variable PTYHUB_COLS: cols: /);
  });
});

describe("a server whose configuration is wrong", () => {
  test("answers initialize, reports the problem in every tool result, and serves once it is fixed", async () => {
    const [dir, file] = configWith("server", `{"colz": 100}`);
    const server = await startMcp({ env: { XDG_CONFIG_HOME: dir } });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await server.raw("term_list", {});
        expect(r.isError).toBe(true);
        const error = (r.structuredContent as { error: { code: string; message: string; hint: string } }).error;
        expect(error.code).toBe("INVALID_ARGUMENT");
        expect(error.message).toContain(`${file}: unknown key "colz"`);
        expect(error.hint).toContain("docs/config.md");
      }
      writeFileSync(file, `// fixed\n{"cols": 100,}\n`);
      const fixed = await server.raw("term_list", {});
      expect(fixed.isError).toBeFalsy();
      expect(fixed.structuredContent).toMatchObject({ sessions: expect.any(Array) });
    } finally {
      await server.close();
    }
  });
});
