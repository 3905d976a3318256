/**
 * Every relative link in the README and docs/ leads somewhere: the file exists, and a `#anchor`
 * names a heading of that file (GitHub's slugs). A newcomer follows these links first; one that
 * broke when a section moved would strand them.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { REPO, readDoc } from "../helpers/markdown.ts";

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(path: string): Set<string> {
  const text = readDoc(path).replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)));
}

const pages = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("links in the README and docs/", () => {
  for (const page of pages) {
    test(`${page}: every relative link resolves`, () => {
      const text = readDoc(page).replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
      const broken: string[] = [];
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        const [file, anchor] = target!.split("#");
        const path = file ? relative(REPO, join(REPO, dirname(page), file)) : page;
        if (!existsSync(join(REPO, path))) broken.push(`${target}: no file ${path}`);
        else if (anchor && path.endsWith(".md") && !anchorsOf(path).has(anchor)) broken.push(`${target}: no heading`);
      }
      expect(broken).toEqual([]);
    });
  }
});
