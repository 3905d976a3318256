/**
 * Deterministic forms of what the completion oracle found (issue 21), each of which failed before
 * its fix: fish's own postexec handlers taken for a nested shell at its prompt (F1), a piece of
 * the echoed command line left in the output (F2: emoji measured differently by the emulator and
 * the line editor; a remote shell left in the POSIX locale), and the shell's mark of a partial
 * last line kept in the output (F3: zsh's PROMPT_SP, fish's ⏎).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ctx, newHost } from "../helpers/host.ts";
import { startLoopbackSshd, sshUsable } from "./sshd.ts";

// The zsh case below points ZDOTDIR at its own .zshrc; the guard asks about a ZDOTDIR it cannot
// read (rule startup-env), and these tests are about completion, so that one rule is off here.
const host = newHost({ guard: { enabled: true, disable: ["startup-env"], rules: [] } });
afterAll(() => host.shutdown());

/**
 * A hook busy for a second or more: far past the wait engine's quiet time before it classifies a
 * running command (INPUT_QUIET_MS, 120 ms), so the misreading is certain, not a race.
 */
const POSTEXEC_BUSY_ITERATIONS = 200_000;

/** A config.fish whose fish_postexec handler is slow: a prompt framework's hook doing work. */
function slowPostexecConfig(): string {
  const config = mkdtempSync(join(tmpdir(), "ptyhub-fish-config-"));
  mkdirSync(join(config, "fish"));
  writeFileSync(
    join(config, "fish", "config.fish"),
    `function slow_postexec --on-event fish_postexec\n  for i in (seq 1 ${POSTEXEC_BUSY_ITERATIONS}); end\nend\n`,
  );
  return config;
}

test("fish with a slow fish_postexec handler: term_exec answers done, not `input via prompt`", async () => {
  // fish itself then leads the foreground group, its tty in its own modes, before its prompt
  // event prints the command's end mark.
  const config = slowPostexecConfig();
  await host.open({ name: "fish-postexec", command: "fish", env: { XDG_CONFIG_HOME: config } }, ctx);
  try {
    const r = await host.exec(
      { session: "fish-postexec", command: "echo x; false", timeout_ms: 30_000, max_tokens: 4000 },
      ctx,
    );
    expect(r).toMatchObject({ status: "done", exit_code: 1, output: "x", via: "shell" });
  } finally {
    await host.close({ session: "fish-postexec" }, ctx);
  }
});

/** `printf` with no final newline: `shell -c` in a pipe prints exactly this. */
const NO_FINAL_NEWLINE = "printf '%s' partial-line";

/** How each shell marks a partial last line on screen: zsh's PROMPT_EOL_MARK (`%`, `#` for root), fish's ⏎. */
// zsh draws its mark in reverse video: the screen the model reads marks it ⟦so⟧ (terminal/highlight.ts).
const EOL_MARKS: Record<string, RegExp> = { zsh: /partial-line⟦?[%#]/, fish: /partial-line⏎/ };

for (const shell of ["zsh", "fish"]) {
  // zsh (PROMPT_SP: `%`, or `#` for root) and fish (`⏎`) mark a last line left without a newline
  // before drawing their prompt; the mark is the shell's, not the command's output.
  test(`${shell}: output without a final newline comes back without the shell's end-of-line mark`, async () => {
    const session = `eol-${shell}`;
    await host.open({ name: session, command: shell }, ctx);
    try {
      const r = await host.exec({ session, command: NO_FINAL_NEWLINE, timeout_ms: 30_000, max_tokens: 4000 }, ctx);
      expect(r).toMatchObject({ status: "done", exit_code: 0, output: "partial-line" });
      // A line naming exit, not running it as a command (the oracle's exit codes): no mark either.
      const coded = await host.exec(
        { session, command: `${NO_FINAL_NEWLINE}; sh -c 'exit 3'`, timeout_ms: 30_000, max_tokens: 4000 },
        ctx,
      );
      expect(coded).toMatchObject({ status: "done", exit_code: 3, output: "partial-line" });
      // A line that ends with a newline gets no mark, and the next output none of the old one.
      const next = await host.exec({ session, command: "echo whole-line", timeout_ms: 30_000, max_tokens: 4000 }, ctx);
      expect(next).toMatchObject({ status: "done", exit_code: 0, output: "whole-line" });
      // The shell still draws its mark for whoever watches the terminal: after the end mark (drawn by
      // the time the next command could be typed at the prompt).
      const screen = await host.read({ session, mode: "screen", max_tokens: 4000 }, ctx);
      expect(screen.output).toMatch(EOL_MARKS[shell]!);
    } finally {
      await host.close({ session }, ctx);
    }
  });
}

/** The oracle's width: where a command line wraps decides whether the line editor's moves go wrong. */
const COLS = 120;
/**
 * Prompt widths tried around the ones that put the wrap of ECHO_LEAK_LINE where the emulator's and
 * the line editor's cell counts disagree (57 and 58 columns locally, with xterm's Unicode 6 widths).
 */
const PROMPT_WIDTHS = { from: 50, to: 64 };
/** Found by the oracle (PTYHUB_ORACLE_SEED=12345, bash case 223): emoji, CJK and narrow text, wrapped. */
const ECHO_LEAK_LINE =
  "printf '%s\\n' 'b0w752 한🎉漢本한'; { printf '\\n'; printf '%s\\n' 'b0w753 ｗ中文👍👍中字🚀日👍中日8漢語nb👍🎉本文中本中語👍" +
  "ｗ🚀한語🎉🙂v6中p🚀語🙂本字🚀語🙂🎉ｗW🙂本🙂🙂語🙂日ｗ한🚀中R漢文한文글字🎉한🙂글🚀本字🚀文G中7語l漢漢3🎉日🚀字글ｗ文文ｗ本🙂字文本🙂🚀ｗｗ" +
  "🎉5本語🙂글中中p字文🙂한語'; printf '%s\\n' b0w754 b0w755 | cat | cat; }; printf '%s\\n' 'b0w757 글中本한中글'; echo; " +
  "printf '%s\\n' b0w758 b0w759 b0w760 | head -n 2";
const ECHO_LEAK_OUTPUT = (() => {
  const p = Bun.spawnSync(["bash", "-c", ECHO_LEAK_LINE], { stdout: "pipe" });
  return p.stdout.toString().replace(/\n$/, "");
})();

/** Runs ECHO_LEAK_LINE after prompts of each width in PROMPT_WIDTHS; returns the widths whose output was wrong. */
async function echoLeaks(session: string): Promise<number[]> {
  const wrong: number[] = [];
  for (let width = PROMPT_WIDTHS.from; width <= PROMPT_WIDTHS.to; width++) {
    const ps1 = `${"p".repeat(width - 2)}$ `;
    const set = await host.exec({ session, command: `PS1='${ps1}'`, timeout_ms: 30_000, max_tokens: 4000 }, ctx);
    expect(set).toMatchObject({ status: "done", exit_code: 0 });
    const r = await host.exec({ session, command: ECHO_LEAK_LINE, timeout_ms: 30_000, max_tokens: 4000 }, ctx);
    expect(r).toMatchObject({ status: "done", exit_code: 0 });
    if (r.output !== ECHO_LEAK_OUTPUT) wrong.push(width);
  }
  return wrong;
}

test("bash: a wrapped command line with emoji leaves none of its echo in the output", async () => {
  // bash's readline counts an emoji as two cells (glibc's wcwidth); an emulator counting one
  // wraps the echo elsewhere, and the output was written over the echo's last row.
  await host.open({ name: "echo-emoji", command: "bash", cols: COLS }, ctx);
  try {
    expect(await echoLeaks("echo-emoji")).toEqual([]);
  } finally {
    await host.close({ session: "echo-emoji" }, ctx);
  }
});

test.skipIf(!sshUsable)(
  "ssh bash on a host that sets no locale: wrapped non-ASCII lines leave no echo",
  async () => {
    // The loopback sshd accepts no LANG and runs no PAM: the remote shell would be in the POSIX
    // locale, its line editor counting each byte of a UTF-8 character as a cell.
    const server = await startLoopbackSshd();
    try {
      await host.open(
        { name: "echo-ssh", command: "bash", cols: COLS, ssh: { host: "127.0.0.1", port: server.port } },
        ctx,
      );
      try {
        const charmap = await host.exec(
          { session: "echo-ssh", command: "locale charmap", timeout_ms: 30_000, max_tokens: 4000 },
          ctx,
        );
        expect(charmap).toMatchObject({ status: "done", exit_code: 0, output: "UTF-8" });
        expect(await echoLeaks("echo-ssh")).toEqual([]);
      } finally {
        await host.close({ session: "echo-ssh" }, ctx);
      }
    } finally {
      await server.stop();
    }
  },
  60_000,
);

/** A user's preexec hook this slow puts the line's start mark far past a short term_exec timeout. */
const SLOW_PREEXEC_S = 0.6;
/** Well inside SLOW_PREEXEC_S: the answer comes before the line has started. */
const SHORT_TIMEOUT_MS = 100;

test("a term_exec after one answered `running` before its line started never takes that line's end as its own", async () => {
  // Seen by the oracle under load (PTYHUB_ORACLE_SEED=1, fish cases 399–400): the next line was
  // typed while the shell still had the first to start, and took the first's output and exit code.
  const zdotdir = mkdtempSync(join(tmpdir(), "ptyhub-zdotdir-"));
  writeFileSync(
    join(zdotdir, ".zshrc"),
    `slow_preexec() { sleep ${SLOW_PREEXEC_S} }\npreexec_functions+=(slow_preexec)\n`,
  );
  await host.open({ name: "late-start", command: "zsh", env: { ZDOTDIR: zdotdir } }, ctx);
  try {
    const opts = { session: "late-start", max_tokens: 4000 };
    const first = await host.exec({ ...opts, command: "echo first; false", timeout_ms: SHORT_TIMEOUT_MS }, ctx);
    expect(first).toMatchObject({ status: "running", exit_code: null });
    // Whatever the next call answers, it must not be the first line's end dressed as its own.
    let second: Awaited<ReturnType<typeof host.exec>> | null = null;
    try {
      second = await host.exec({ ...opts, command: "echo second", timeout_ms: 30_000 }, ctx);
    } catch (e) {
      expect(String(e)).toContain("still running a command");
    }
    if (second) expect(second).toMatchObject({ status: "done", exit_code: 0, output: "second" });
  } finally {
    await host.close({ session: "late-start" }, ctx);
  }
});

/** Found by the oracle (PTYHUB_ORACLE_SEED=1, ssh bash cases 87–88): output left without a final newline… */
const PARTIAL_LINE_BEFORE = "printf '%s\\n' 's6w302ML F>:'; printf '%s' 's6w304mLmdX'";
/** …then a line that wraps after the prompt drawn behind it (a wide character near the margin). */
const WRAPPED_AFTER = "(sleep 0.087; echo s6w305) & wait; printf '%s\\n' 's6w306 語👍'";

// bash draws its prompt on the row of output left without a final newline, where readline counts
// from column 0, so its cursor moves over a wrapped line went a row off and the next output (a
// job-start line here) was written over the echo's last row (prompt width 58). The session's
// screen now starts such a prompt on a row of its own (Session.promptNeedsFreshRow).
test("bash: a prompt drawn after output without a final newline leaves no echo in the next output", async () => {
  await host.open({ name: "partial-prompt", command: "bash", cols: COLS }, ctx);
  try {
    const opts = { session: "partial-prompt", timeout_ms: 30_000, max_tokens: 4000 };
    const wrong: string[] = [];
    for (let width = PROMPT_WIDTHS.from; width <= PROMPT_WIDTHS.to; width++) {
      expect(await host.exec({ ...opts, command: `PS1='${"p".repeat(width - 2)}# '` }, ctx)).toMatchObject({
        exit_code: 0,
      });
      expect(await host.exec({ ...opts, command: PARTIAL_LINE_BEFORE }, ctx)).toMatchObject({
        output: "s6w302ML F>:\ns6w304mLmdX",
      });
      const r = await host.exec({ ...opts, command: WRAPPED_AFTER }, ctx);
      if (!/^(\[1\] \d+\n)?s6w305\ns6w306 語👍$/.test(r.output)) wrong.push(`${width}: ${JSON.stringify(r.output)}`);
    }
    expect(wrong).toEqual([]);
  } finally {
    await host.close({ session: "partial-prompt" }, ctx);
  }
});
