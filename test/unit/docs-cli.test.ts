/**
 * docs/cli.md against the CLI's verb table (src/cli/verb-table.ts): a section for each verb a
 * person may type, and none for a verb that does not exist; each verb's section names every option
 * its own `--help` names.
 */
import { describe, expect, test } from "bun:test";
import { PUBLIC_VERBS } from "../../src/cli/verb-table.ts";
import { join } from "node:path";
import { REPO, readDoc, section } from "../helpers/markdown.ts";

const doc = readDoc("docs/cli.md");
const documented = [...doc.matchAll(/^### `ptyhub ([a-z-]+)`$/gm)].map((m) => m[1]!);

describe("docs/cli.md against the verb table", () => {
  test("each public verb has its section, and no other verb does", () => {
    expect([...documented].sort()).toEqual([...PUBLIC_VERBS].sort());
  });

  for (const verb of PUBLIC_VERBS) {
    test(`ptyhub ${verb}: every option its --help names is in its section`, () => {
      const help = Bun.spawnSync([process.execPath, join(REPO, "src/cli.ts"), verb, "--help"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(help.exitCode).toBe(0);
      const text = help.stdout.toString() + help.stderr.toString();
      const options = new Set(
        [...text.matchAll(/(?<![\w-])--[a-z][a-z-]+/g)].map((m) => m[0]).filter((o) => o !== "--help"),
      );
      const body = section(doc, `### \`ptyhub ${verb}\``);
      expect([...options].filter((o) => !body.includes(o))).toEqual([]);
    });
  }
});
