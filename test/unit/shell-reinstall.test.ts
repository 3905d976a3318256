import { describe, expect, test } from "bun:test";
import { parseMark } from "../../src/terminal/shell-integration.ts";
import { integrationOf, reinstallFor } from "../../src/terminal/shell-reinstall.ts";
import { interactiveShellArgs } from "../../src/session/bare-shell.ts";

describe("hooks for a running shell", () => {
  const nonce = "0123456789abcdef01234567";
  const families = ["bash", "zsh", "fish", "sh"] as const;

  test.each(families)("%s: the hooks without the user's rc loading, the nonce, self-removal, the R mark", (family) => {
    const r = reinstallFor(family, nonce, "/run/ptyhub");
    expect(r.path).toMatch(new RegExp(`^/run/ptyhub/reinstall-[0-9a-f]{12}\\.${family}$`));
    // The typed line names the file only: the nonce stays off the command line and out of history.
    expect(r.line).not.toContain(nonce);
    expect(r.line.startsWith(" ")).toBe(true);
    expect(r.line).toContain(`'${r.path}'`);
    expect(r.script).toContain(nonce);
    expect(r.script).toContain(`command rm -f -- '${r.path}' 2>/dev/null`);
    expect(r.script).toContain(";R\\007");
    // The user's rc files were loaded by that shell already: not again.
    expect(r.script).not.toMatch(/\.bashrc|\.zshrc|PTYHUB_USER_ENV|PTYHUB_NONCE/);
    // The ready mark at the end of the prompt, in each shell's own quoting.
    expect(r.script).toMatch(/;B\\(007|a)/);
  });

  test("two installs never share a file", () => {
    expect(reinstallFor("bash", nonce, "/d").path).not.toBe(reinstallFor("bash", nonce, "/d").path);
  });

  test("the R mark parses with the nonce only; sh gets markers, the others hooks", () => {
    expect(parseMark(`${nonce};R`, nonce)).toEqual({ kind: "reinstalled" });
    expect(parseMark("other;R", nonce)).toBeNull();
    expect(families.map(integrationOf)).toEqual(["shell", "shell", "shell", "marker"]);
  });
});

describe("a bash given the hooks by sourcing the file", () => {
  test("prints R, then at its prompt the end mark, the prompt mark and the ready mark; once", async () => {
    const { mkdtempSync, existsSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "ptyhub-reinstall-"));
    const nonce = "feedface";
    const r = reinstallFor("bash", nonce, dir);
    writeFileSync(r.path, r.script, { mode: 0o600 });
    // Sourced a second time (a shell whose ready mark was late), it changes nothing.
    const again = `cat > '${r.path}' <<'PTYHUB_EOF'\n${r.script}PTYHUB_EOF\n${r.line.trim()}`;
    // A non-interactive bash runs what the prompt would: PROMPT_COMMAND, then PS1's expansion.
    const script = `${r.line.trim()}\n${again}\neval "$PROMPT_COMMAND"\nprintf '%s' "\${PS1@P}"`;
    const proc = Bun.spawn(["bash", "--norc", "-c", script], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const marks = [...out.matchAll(/\x1b\]6973;([^\x07]*)\x07/g)].map((m) => parseMark(m[1]!, nonce)?.kind);
    expect(marks).toEqual(["reinstalled", "end", "prompt", "ready"]);
    expect(existsSync(r.path)).toBe(false);
  });
});

describe("interactive shells are told from scripts by their arguments", () => {
  test("options only: interactive; a script, -c or an option's value followed by a script: not", () => {
    expect(interactiveShellArgs(["bash"])).toBe(true);
    expect(interactiveShellArgs(["-bash"])).toBe(true);
    expect(interactiveShellArgs(["bash", "-l"])).toBe(true);
    expect(interactiveShellArgs(["bash", "--norc", "--noprofile", "-i"])).toBe(true);
    expect(interactiveShellArgs(["bash", "--rcfile", "/tmp/x.rc", "-i"])).toBe(true);
    expect(interactiveShellArgs(["zsh", "-f"])).toBe(true);
    expect(interactiveShellArgs(["fish", "--init-command", "set x 1"])).toBe(true);
    expect(interactiveShellArgs(["bash", "ask.sh"])).toBe(false);
    expect(interactiveShellArgs(["bash", "-c", "read -e a"])).toBe(false);
    expect(interactiveShellArgs(["bash", "-lc", "read -e a"])).toBe(false);
    expect(interactiveShellArgs(["fish", "--command", "read"])).toBe(false);
    expect(interactiveShellArgs(["bash", "--rcfile", "/tmp/x.rc", "ask.sh"])).toBe(false);
  });
});
