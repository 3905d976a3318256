/** Shell integration in every supported shell: exact exit codes, cwd, clean output, user rc still loads. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const shells: Array<{ shell: string; via: "shell" | "marker" }> = [
  { shell: "bash", via: "shell" },
  { shell: "zsh", via: "shell" },
  { shell: "sh", via: "marker" },
];
if (Bun.which("fish")) shells.push({ shell: "fish", via: "shell" });
else console.warn("fish is not installed: its integration test is skipped");

describe.each(shells)("$shell", ({ shell, via }) => {
  test("exit codes, cwd, clean output, multi-line commands", async () => {
    const home = mkdtempSync(join(tmpdir(), `ptyhub-${shell}-`));
    await host.open({ name: shell, command: shell, cwd: home }, ctx);
    const ok = await host.exec({ session: shell, command: "echo hello", ...defaults }, ctx);
    expect(ok).toMatchObject({ status: "done", exit_code: 0, output: "hello", via });
    const fail = await host.exec({ session: shell, command: "false", ...defaults }, ctx);
    expect(fail).toMatchObject({ status: "done", exit_code: 1, via });
    const code = await host.exec(
      { session: shell, command: shell === "fish" ? "sh -c 'exit 42'" : "(exit 42)", ...defaults },
      ctx,
    );
    expect(code.exit_code).toBe(42);
    mkdirSync(join(home, "sub dir"));
    const cd = await host.exec({ session: shell, command: "cd 'sub dir'", ...defaults }, ctx);
    expect(cd.cwd).toBe(join(home, "sub dir"));
    const multi = await host.exec({ session: shell, command: "echo one\necho two", ...defaults }, ctx);
    expect(multi).toMatchObject({ exit_code: 0, output: "one\ntwo" });
    const slow = await host.exec({ session: shell, command: "sleep 0.5; echo late", ...defaults }, ctx);
    expect(slow.output).toBe("late");
    await host.close({ session: shell }, ctx);
  });

  test("a read that waits for a running command's end says how it ended", async () => {
    const session = `${shell}-read-end`;
    await host.open({ name: session, command: shell }, ctx);
    try {
      // A timeout well inside the sleep: the command is still running when term_exec answers.
      const r = await host.exec({ ...defaults, session, command: "sleep 0.5; echo late", timeout_ms: 100 }, ctx);
      expect(r).toMatchObject({ status: "running", exit_code: null });
      const read = await host.read({ session, mode: "new", wait_ms: 30_000, max_tokens: 4000 }, ctx);
      expect(read).toMatchObject({ via, state: "prompt" });
      expect(read.output).toContain("late");
    } finally {
      await host.close({ session }, ctx);
    }
  });
});

describe("the user's rc files still load", () => {
  test("bash: ~/.bashrc aliases and variables are there", async () => {
    const home = mkdtempSync(join(tmpdir(), "ptyhub-rc-"));
    writeFileSync(join(home, ".bashrc"), "export FROM_RC=yes\nalias hi='echo hi-from-alias'\nPROMPT_COMMAND='true;'\n");
    await host.open({ name: "rc", command: "bash", env: { HOME: home } }, ctx);
    const r = await host.exec({ session: "rc", command: "echo $FROM_RC; hi", ...defaults }, ctx);
    expect(r).toMatchObject({ via: "shell", output: "yes\nhi-from-alias" });
    await host.close({ session: "rc" }, ctx);
  });

  test("zsh: ~/.zshrc loads and ZDOTDIR is restored", async () => {
    const home = mkdtempSync(join(tmpdir(), "ptyhub-zrc-"));
    writeFileSync(join(home, ".zshrc"), "export FROM_ZSHRC=yes\n");
    await host.open({ name: "zrc", command: "zsh", env: { HOME: home } }, ctx);
    const r = await host.exec({ session: "zrc", command: "echo $FROM_ZSHRC ${ZDOTDIR:-unset}", ...defaults }, ctx);
    expect(r).toMatchObject({ via: "shell", output: "yes unset" });
    await host.close({ session: "zrc" }, ctx);
  });
});
