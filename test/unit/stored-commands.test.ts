/** The commands a line stores for fish to run later, unasked (src/guard/stored-commands.ts). */
import { describe, expect, test } from "bun:test";
import { storedCommands } from "../../src/guard/stored-commands.ts";

describe("stored commands", () => {
  test("a key binding's command and a completion's argument command are judged with the line", () => {
    expect(storedCommands("bind \\cg 'rm -rf /'")).toEqual(["cg", "rm -rf /"]);
    expect(storedCommands("bind -M insert \\cg 'rm -rf /'")).toContain("rm -rf /");
    expect(storedCommands("builtin bind \\cg 'rm -rf /'")).toContain("rm -rf /");
    expect(storedCommands("echo hi; bind \\cg 'rm -rf /'")).toContain("rm -rf /");
    expect(storedCommands("complete -c x -a '(rm -rf /)'")).toContain("(rm -rf /)");
  });

  test("other lines store nothing", () => {
    expect(storedCommands("echo bind 'rm -rf /'")).toEqual([]);
    expect(storedCommands("ls -la")).toEqual([]);
  });
});
