/**
 * The shell matrix, users' rc files: hooks installed the way bash-preexec (a DEBUG trap and a
 * PROMPT_COMMAND of its own), oh-my-zsh/powerlevel10k (precmd/preexec arrays that rebuild PS1 and
 * PS2) and fish prompt themes (a custom fish_prompt and right prompt) do.
 * Exit codes, output and continuation prompts must come through them unchanged.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const exec = { timeout_ms: 20_000, max_tokens: 4000 };
const send = { wait_ms: 20_000, max_tokens: 4000 };

const BASH_PREEXEC_RC = `
# As bash-preexec does: a DEBUG trap that runs before each command, and its own PROMPT_COMMAND.
__bp_last_status=0
__bp_preexec_ran=0
__bp_preexec() { __bp_preexec_ran=$((__bp_preexec_ran + 1)); }
trap '__bp_preexec' DEBUG
__bp_precmd() { __bp_last_status=$?; PS1="[rc \\$?] \\w \\$ "; PS2="cont> "; }
PROMPT_COMMAND="__bp_precmd"
`;

const P10K_ZSHRC = `
# As powerlevel10k/oh-my-zsh do: hooks in the precmd/preexec arrays that rebuild the prompts.
autoload -Uz add-zsh-hook
_theme_precmd() { PS1="%F{blue}%~%f %# "; PS2="%_ ... "; RPROMPT="%?"; }
_theme_preexec() { typeset -g _theme_started=$EPOCHSECONDS; }
add-zsh-hook precmd _theme_precmd
add-zsh-hook preexec _theme_preexec
`;

const FISH_CONFIG = `
function fish_prompt
    set -l s $status
    printf '%s [%s] %s> ' (whoami) $s (prompt_pwd)
end
function fish_right_prompt
    date +%H:%M
end
`;

function homeWith(files: Record<string, string>): string {
  const home = mkdtempSync(join(tmpdir(), "ptyhub-rc-home-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(home, path, ".."), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return home;
}

const cases: Array<{ shell: string; files: Record<string, string>; unfinished: string }> = [
  { shell: "bash", files: { ".bashrc": BASH_PREEXEC_RC }, unfinished: "if true; then" },
  { shell: "zsh", files: { ".zshrc": P10K_ZSHRC }, unfinished: "echo (" },
  { shell: "fish", files: { ".config/fish/config.fish": FISH_CONFIG }, unfinished: 'echo "abc' },
];

describe.each(cases)("$shell with a prompt framework's hooks", ({ shell, files, unfinished }) => {
  test("exit codes, output, cwd and continuation prompts come through the user's hooks", async () => {
    const home = homeWith(files);
    await host.open(
      { name: shell, command: shell, cwd: home, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } },
      ctx,
    );
    const ok = await host.exec({ session: shell, command: "echo hooked", ...exec }, ctx);
    expect(ok).toMatchObject({ status: "done", exit_code: 0, via: "shell", output: "hooked" });
    const fail = await host.exec({ session: shell, command: "false", ...exec }, ctx);
    expect(fail).toMatchObject({ status: "done", exit_code: 1, via: "shell", output: "" });
    const code = await host.exec({ session: shell, command: "sh -c 'exit 42'", ...exec }, ctx);
    expect(code.exit_code).toBe(42);
    const cd = await host.exec({ session: shell, command: "cd /tmp", ...exec }, ctx);
    expect(cd.cwd).toBe("/tmp");
    const cont = await host.exec({ session: shell, command: unfinished, ...exec }, ctx);
    expect(cont).toMatchObject({ status: "input", state: "continuation", exit_code: null });
    const cancel = await host.send({ session: shell, keys: ["ctrl+c"], ...send }, ctx);
    expect(cancel.state).toBe("prompt");
    const after = await host.exec({ session: shell, command: "echo still-fine", ...exec }, ctx);
    expect(after).toMatchObject({ status: "done", exit_code: 0, output: "still-fine" });
    if (shell === "bash") {
      // The user's hooks still run: their DEBUG trap counted commands, their prompt is in place.
      const ran = await host.exec({ session: shell, command: "echo $__bp_preexec_ran", ...exec }, ctx);
      expect(Number(ran.output)).toBeGreaterThan(0);
    }
    await host.close({ session: shell }, ctx);
  });
});
