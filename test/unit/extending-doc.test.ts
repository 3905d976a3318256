/**
 * docs/extending.md's recipes against the code: every path it names exists, its layer table is
 * scripts/layers.ts, and the lists it gives (the kinds, the tools) are the ones the code has. A
 * recipe that drifted from the code would send the next person to the wrong files.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BACKEND_KINDS } from "../../src/api/kinds.ts";
import { TOOLS } from "../../src/mcp/tools/all-tools.ts";
import { LAYERS } from "../../scripts/layers.ts";
import { POSIX_SHELL_FAMILIES, SHELLS } from "../../src/terminal/shells/all-shells.ts";

const repo = join(import.meta.dir, "../..");
const doc = readFileSync(join(repo, "docs/extending.md"), "utf8");

/** The backticked names that follow "<label> today:" in the doc, up to the paragraph's end. */
function listAfter(label: string): string[] {
  const at = doc.indexOf(`${label} today:`);
  expect(at).toBeGreaterThan(-1);
  const paragraph = doc.slice(at, doc.indexOf("\n\n", at));
  return [...paragraph.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

describe("docs/extending.md", () => {
  test("every file it names exists (a <kind> or <name> stands for any)", () => {
    const named = [...doc.matchAll(/`((?:src|test|scripts)\/[^`\s]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((p) => !p.includes("<") && !existsSync(join(repo, p)));
    expect(missing).toEqual([]);
  });

  test("its layer table is the one the lint enforces", () => {
    const rendered = [...LAYERS]
      .reverse()
      .map((parts) => parts.join(", "))
      .join("\n");
    expect(doc).toContain("```\n" + rendered + "\n```");
  });

  test("the kinds it lists are the contract's, each with its folder's descriptor and parameter", () => {
    expect(listAfter("The kinds")).toEqual([...BACKEND_KINDS]);
    for (const kind of BACKEND_KINDS) {
      expect(existsSync(join(repo, "src/backend", kind, "kind.ts"))).toBe(true);
      if (kind !== "local") expect(existsSync(join(repo, "src/backend", kind, "params.ts"))).toBe(true);
    }
  });

  test("the tools it lists are the registered ones, each in a file of its own", () => {
    expect(listAfter("The tools")).toEqual(TOOLS.map((t) => t.name));
    const files = readdirSync(join(repo, "src/mcp/tools")).filter((f) => f !== "all-tools.ts");
    expect(files.length).toBe(TOOLS.length);
  });

  test("the shells it lists are the list's, each with its descriptor file and its script files", () => {
    expect(listAfter("The shells")).toEqual([...POSIX_SHELL_FAMILIES]);
    const scripts = readdirSync(join(repo, "src/terminal/shells"));
    for (const shell of SHELLS) {
      expect(existsSync(join(repo, "src/terminal/shells", `${shell.family}.ts`))).toBe(true);
      for (const text of Object.values(shell.files))
        expect(scripts.some((f) => readFileSync(join(repo, "src/terminal/shells", f), "utf8") === text)).toBe(true);
    }
  });
});
