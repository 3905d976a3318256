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
    // Where the kernel can say, only once the program reads: `stty -echo; make` is running.
    const echoOff = { atShellPrompt: false, tty: { echo: false, canonical: true } };
    expect(c({ ...echoOff, waitsForTty: () => true })).toBe("password");
    expect(c({ ...echoOff, waitsForTty: () => false })).toBe("running");
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

describe("what the kernel adds (issue 22): reading, and a prompt with text typed after it", () => {
  const raw = { echo: false, canonical: false };
  const reading = () => true;

  test("a program blocked reading the terminal with no text to say why is reading, else running", () => {
    expect(c({ beforeCursor: "", tty: { echo: true, canonical: true }, waitsForTty: reading })).toBe("reading");
    expect(c({ beforeCursor: "", tty: { echo: true, canonical: true }, waitsForTty: () => false })).toBe("running");
    // Text that says why still wins.
    expect(c({ beforeCursor: "Overwrite? [y/N] ", waitsForTty: reading })).toBe("confirm");
  });

  test("a line editor with text after its prompt (after tab or a typed word) is at its prompt", () => {
    // Python's tab on an empty line indents: ">>>" and four blanks, the cursor after them.
    const lines = [">>> print(", "127.0.0.1:6379> SET", "postgres=# SELECT", "sqlite> .tab", "... x = 1", ">>>     "];
    for (const line of lines) {
      expect(c({ beforeCursor: line, tty: raw, waitsForTty: reading })).toBe("prompt");
      // Not without the kernel's word, nor from a canonical-mode reader: any output line could look so.
      expect(c({ beforeCursor: line, tty: raw, waitsForTty: () => false })).toBe("running");
      expect(c({ beforeCursor: line, tty: { echo: true, canonical: true }, waitsForTty: reading })).toBe("reading");
    }
  });

  test("a shell without a line editor (dash: canonical mode) with a word typed after its prompt is at its prompt", () => {
    const canonical = { echo: true, canonical: true };
    expect(c({ beforeCursor: "$ ech", tty: canonical, waitsForTty: reading, foreground: () => ["dash"] })).toBe(
      "prompt",
    );
    // Not a program reading a line under the same text.
    expect(c({ beforeCursor: "$ ech", tty: canonical, waitsForTty: reading, foreground: () => ["cat"] })).toBe(
      "reading",
    );
  });

  test("less's (END) above the last row of the alt screen is a pager when less runs, else a (gdb)-like prompt", () => {
    const shortText = { beforeCursor: "(END)", altScreen: true, cursorOnLastRow: false };
    expect(c({ ...shortText, foreground: () => ["python3", "sh", "less"] })).toBe("pager");
    expect(c({ ...shortText, foreground: () => ["gdb"] })).toBe("prompt");
  });
});
