import { describe, expect, test } from "bun:test";
import { editJsonServers, type JsonServerEntry } from "../../src/install/json-servers.ts";
import { ConfigEditError } from "../../src/install/config-edit.ts";
import { nodeValue, parseJsonc } from "../../src/util/jsonc.ts";

const ENTRY: JsonServerEntry = {
  serversKey: "mcpServers",
  name: "ptyhub",
  fields: { command: "/opt/ptyhub/bin/ptyhub", args: [] },
};

function valueOf(text: string): Record<string, any> {
  return nodeValue(parseJsonc(text).root!) as Record<string, any>;
}

/**
 * add → the entry is there; add again → no change; remove → the original bytes come back (or,
 * when the add created the servers object, the original plus an empty one: removal takes out
 * only ptyhub's entry).
 */
function expectRoundTrip(original: string, afterRemove = original): string {
  const added = editJsonServers(original, ENTRY, "add");
  expect(added.changed).toBe(true);
  expect(valueOf(added.text).mcpServers.ptyhub).toEqual(ENTRY.fields);
  expect(editJsonServers(added.text, ENTRY, "add").changed).toBe(false);
  const removed = editJsonServers(added.text, ENTRY, "remove");
  expect(removed.text).toBe(afterRemove);
  return added.text;
}

describe("editJsonServers", () => {
  test("creates the document for a missing or blank file", () => {
    for (const original of [null, "", "  \n"]) {
      const result = editJsonServers(original, ENTRY, "add");
      expect(result).toMatchObject({ changed: true, existed: false });
      expect(JSON.parse(result.text)).toEqual({ mcpServers: { ptyhub: ENTRY.fields } });
    }
  });

  test("removing from a missing file changes nothing", () => {
    expect(editJsonServers(null, ENTRY, "remove")).toEqual({ text: "", changed: false, existed: false });
  });

  test("appends to an existing servers object, keeping other servers and settings byte for byte", () => {
    const original = `{\n  "theme": "dark",\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  },\n  "big": 12345678901234567890\n}\n`;
    const added = expectRoundTrip(original);
    expect(added).toContain(`"big": 12345678901234567890`);
    expect(
      added.startsWith(
        `{\n  "theme": "dark",\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    },\n    "ptyhub": {\n`,
      ),
    ).toBe(true);
  });

  test("keeps comments, tabs, CRLF line ends and trailing commas (JSONC)", () => {
    const original = `// servers\r\n{\r\n\t"servers": {\r\n\t\t// the other one\r\n\t\t"other": { "command": "x" }, // trailing\r\n\t},\r\n}\r\n`;
    const entry = { ...ENTRY, serversKey: "servers" };
    const added = editJsonServers(original, entry, "add");
    expect(added.text).toContain("// servers\r\n");
    expect(added.text).toContain(`"other": { "command": "x" }, // trailing\r\n\t\t"ptyhub": {\r\n\t\t\t"command"`);
    expect(added.text).not.toMatch(/[^\r]\n/);
    expect(editJsonServers(added.text, entry, "remove").text).toBe(original);
  });

  test("adds the servers object when it is missing, after a trailing line comment", () => {
    const added = expectRoundTrip(
      `{\n  "theme": "dark" // mine\n}\n`,
      `{\n  "theme": "dark", // mine\n  "mcpServers": {}\n}\n`,
    );
    expect(added).toContain(`"theme": "dark", // mine\n  "mcpServers": {\n    "ptyhub"`);
  });

  test("fills an empty servers object, including one that holds only a comment", () => {
    expectRoundTrip(`{\n  "mcpServers": {}\n}\n`);
    const added = expectRoundTrip(`{\n  "mcpServers": {\n    // none yet\n  }\n}\n`);
    expect(added).toContain("// none yet");
  });

  test("keeps a single-line file on one line", () => {
    const added = editJsonServers(`{"a":1}`, ENTRY, "add");
    expect(added.text.split("\n")).toHaveLength(1);
    expect(valueOf(added.text)).toEqual({ a: 1, mcpServers: { ptyhub: ENTRY.fields } });
  });

  test("keeps a byte order mark", () => {
    const added = expectRoundTrip(`\uFEFF{\n  "a": 1\n}\n`, `\uFEFF{\n  "a": 1,\n  "mcpServers": {}\n}\n`);
    expect(added.startsWith("\uFEFF{")).toBe(true);
  });

  test("updates a stale entry but keeps fields the user added to it", () => {
    const original = `{\n  "mcpServers": {\n    "ptyhub": { "command": "/old/ptyhub", "env": { "A": "1" } }\n  }\n}\n`;
    const updated = editJsonServers(original, ENTRY, "add");
    expect(updated).toMatchObject({ changed: true, existed: true });
    expect(valueOf(updated.text).mcpServers.ptyhub).toEqual({
      command: "/opt/ptyhub/bin/ptyhub",
      env: { A: "1" },
      args: [],
    });
    expect(editJsonServers(updated.text, ENTRY, "add").changed).toBe(false);
  });

  test("an entry equal to ours, in any layout, is left alone", () => {
    const original = `{"mcpServers":{"ptyhub":{"args":[],"command":"/opt/ptyhub/bin/ptyhub"}}}`;
    expect(editJsonServers(original, ENTRY, "add")).toEqual({ text: original, changed: false, existed: true });
  });

  test("removes the only entry, and an entry between others", () => {
    expect(editJsonServers(`{"mcpServers":{"ptyhub":{}}}`, ENTRY, "remove").text).toBe(`{"mcpServers":{}}`);
    const middle = `{\n  "mcpServers": {\n    "a": 1,\n    "ptyhub": {\n      "command": "x"\n    },\n    "b": 2\n  }\n}\n`;
    expect(editJsonServers(middle, ENTRY, "remove").text).toBe(
      `{\n  "mcpServers": {\n    "a": 1,\n    "b": 2\n  }\n}\n`,
    );
  });

  const refusals: Array<[string, string, RegExp]> = [
    ["invalid JSON", `{"mcpServers": {`, /not valid JSON \(line 1, column 17/],
    ["a top level that is not an object", `[1, 2]`, /top level is not a JSON object/],
    ["servers that are not an object", `{"mcpServers": []}`, /"mcpServers" is not an object/],
    ["duplicate servers keys", `{"mcpServers": {}, "mcpServers": {}}`, /appears 2 times/],
    ["an unterminated comment", `{} /* no end`, /unterminated/],
    [
      "a comment inside our entry",
      `{"mcpServers": {"ptyhub": {"command": "x" /* mine */}}}`,
      /comments in or beside it/,
    ],
  ];
  for (const [what, text, message] of refusals) {
    test(`refuses ${what}`, () => {
      expect(() => editJsonServers(text, ENTRY, "add")).toThrow(message);
      expect(() => editJsonServers(text, ENTRY, "add")).toThrow(ConfigEditError);
    });
  }

  test("refuses to remove an entry whose comment would be lost", () => {
    const text = `{\n  "mcpServers": {\n    "a": 1,\n    "ptyhub": {} // added by hand\n  }\n}\n`;
    expect(() => editJsonServers(text, ENTRY, "remove")).toThrow(/comments in or beside it/);
  });
});
