/**
 * Full-screen programs through the real MCP client (issue 22, item 6): a keystroke in vim costs
 * the rows it changed, not the whole untrimmed screen; term_exec that leaves vim or a pager
 * waiting answers with the screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

/** Issue 22's target for what one keystroke in vim returns (the text a model reads). */
const KEYSTROKE_TARGET_CHARS = 300;

let mcp: McpClient;
let dir: string;

beforeAll(async () => {
  mcp = await startMcp({ transport: "in-process", config: { persistent: false, shell: "/bin/bash" } });
  dir = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "fullscreen-"));
  writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
});
afterAll(async () => {
  await mcp.close();
});

interface Answer {
  text: string;
  s: Record<string, any>;
}

async function call(name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await mcp.raw(name, args);
  if (r.isError) throw new Error((r.content[0] as { text: string }).text);
  return { text: (r.content[0] as { text: string }).text, s: r.structuredContent as Record<string, any> };
}

describe("full-screen programs", () => {
  test("term_exec vim answers input with the trimmed screen; a keystroke returns only the changed rows", async () => {
    await call("term_open", { name: "fs", cwd: dir, cols: 100, rows: 30 });
    const open = await call("term_exec", { session: "fs", command: "vim -u NONE -N notes.txt", timeout_ms: 10_000 });
    expect(open.s.status).toBe("input");
    expect(open.s.screen_mode).toBe("screen");
    const rows = (open.s.screen as string).split("\n");
    expect(rows.slice(0, 2)).toEqual(["first line", "second line"]);
    expect(open.s.screen).toContain('"notes.txt"');
    // Trimmed: no row ends in blanks, and vim's column of "~" rows is collapsed.
    expect(rows.every((r) => r === r.trimEnd())).toBe(true);
    expect(open.s.screen).toContain("same line repeated");
    expect(open.text).toContain("--- screen ---\nfirst line");

    const key = await call("term_send", { session: "fs", keys: ["j"] });
    expect(key.s.screen_mode).toBe("diff");
    const typed = await call("term_send", { session: "fs", text: "Otyped here", enter: false, keys: ["escape"] });
    expect(typed.s.screen_mode).toBe("diff");
    expect(typed.s.screen).toContain("  2| typed here");
    expect(typed.text.length).toBeLessThanOrEqual(KEYSTROKE_TARGET_CHARS);
    expect(typed.text).toContain("--- screen: changed rows (cursor 2,");

    // term_read screen of the same state: the whole screen, and it agrees with the diff applied.
    const screen = await call("term_read", { session: "fs", mode: "screen" });
    expect(screen.s.output.split("\n").slice(0, 3)).toEqual(["first line", "typed here", "second line"]);
    await call("term_send", { session: "fs", text: ":q!" });
  });

  test("git log | less answers input with the pager's screen", async () => {
    const git = "git -c user.name=Ada -c user.email=ada@example.com";
    const setup = `cd ${dir} && git init -q -b main r && cd r && ${git} commit -q --allow-empty -m 'the only commit'`;
    expect((await call("term_exec", { session: "fs", command: setup })).s.exit_code).toBe(0);
    const log = await call("term_exec", { session: "fs", command: "git log | less", timeout_ms: 10_000 });
    expect(log.s.status).toBe("input");
    expect(log.s.screen).toContain("the only commit");
    expect(log.text).toContain("the only commit");
    await call("term_send", { session: "fs", text: "q", enter: false });
  });

  test("a keystroke that changes every row (a pager's next page) returns the whole screen, not a longer diff", async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1} of a long file`);
    writeFileSync(join(dir, "long.txt"), `${lines.join("\n")}\n`);
    const less = await call("term_exec", {
      session: "fs",
      command: `less ${join(dir, "long.txt")}`,
      timeout_ms: 10_000,
    });
    expect(less.s.status).toBe("input");
    expect(less.s.screen).toContain("line 1 of a long file");
    const page = await call("term_send", { session: "fs", text: " ", enter: false, until: "line 40 of" });
    expect(page.s.screen_mode).toBe("screen");
    expect(page.s.screen.split("\n")[0]).toMatch(/^line \d+ of a long file$/);
    expect(page.text).toContain("--- screen (cursor");
    await call("term_send", { session: "fs", text: "q", enter: false });
    await call("term_close", { session: "fs" });
  });
});
