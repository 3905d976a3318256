import { describe, expect, test } from "bun:test";
import { classify, type ClassifyInput } from "../../src/terminal/classify.ts";

const base: ClassifyInput = {
  exited: false,
  atShellPrompt: null,
  beforeCursor: "",
  cursorOnLastRow: false,
  altScreen: false,
  tty: null,
};
const c = (over: Partial<ClassifyInput>) => classify({ ...base, ...over });

describe("state classification", () => {
  test("exit and shell integration come first", () => {
    expect(c({ exited: true, beforeCursor: "Password: " })).toBe("exited");
    expect(c({ atShellPrompt: true, beforeCursor: "anything" })).toBe("prompt");
  });

  test("password: from the tty mode (echo off, canonical) or the prompt text", () => {
    expect(c({ atShellPrompt: false, tty: { echo: false, canonical: true } })).toBe("password");
    expect(c({ atShellPrompt: false, tty: { echo: false, canonical: false } })).toBe("running");
    for (const p of [
      "Password: ",
      "[sudo] password for bob: ",
      "Enter passphrase for key '/root/.ssh/id_ed25519': ",
      "pass" + "word:",
    ]) {
      expect(c({ beforeCursor: p })).toBe("password");
    }
  });

  test("confirm prompts", () => {
    for (const p of [
      "Do you want to continue? [Y/n] ",
      "Overwrite file? (y/n) ",
      "Proceed ([y]/n)? ",
      "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
      "Delete all? [y/N]: ",
    ]) {
      expect(c({ beforeCursor: p })).toBe("confirm");
    }
  });

  test("pagers: status line on the last row", () => {
    for (const p of [
      ":",
      "(END)",
      "--More--(42%)",
      "lines 1-40/200 20%",
      " Manual page ls(1) line 1 (press h for help or q to quit)",
    ]) {
      expect(c({ beforeCursor: p, cursorOnLastRow: true })).toBe("pager");
    }
    expect(c({ beforeCursor: ":", cursorOnLastRow: false })).not.toBe("pager");
  });

  test("REPL prompts without shell integration; plain output is running", () => {
    for (const p of [
      ">>> ",
      "... ",
      "> ",
      "$ ",
      "root@host:~# ",
      "In [3]: ",
      "(gdb) ",
      "mysql> ",
      "postgres=# ",
      "sqlite> ",
    ]) {
      expect(c({ beforeCursor: p })).toBe("prompt");
    }
    for (const p of ["compiling foo.c", "", "50%"]) expect(c({ beforeCursor: p })).toBe("running");
  });
});
