/**
 * The shell matrix: the same everyday situations in bash, zsh, fish, dash (sh) and busybox ash,
 * on real PTYs. Each ends with the right status and exit code, or an honest non-`done` status
 * within a moment of the shell telling — never a wait to the timeout when the shell could have
 * told. One session per shell serves the scenarios that leave it as it was; those that end or
 * replace the shell get their own. docs/completion.md's "Shell matrix" table lists what this proves.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, newHost } from "../helpers/host.ts";
import type { ExecResult } from "../../src/session/exec.ts";

const host = newHost();
afterAll(() => host.shutdown());

/** Generous, so a loaded machine never fails a test; "within a moment" is checked separately. */
const TIMEOUT_MS = 20_000;
/** What "within a moment" means here: far below TIMEOUT_MS, far above a shell's answer under load. */
const PROMPTLY_MS = 5_000;
const exec = { timeout_ms: TIMEOUT_MS, max_tokens: 4000 };
const send = { wait_ms: TIMEOUT_MS, max_tokens: 4000 };

interface ShellCase {
  name: string;
  command: string;
  via: "shell" | "marker";
  /** A syntax error and the exit code the shell gives it. */
  syntaxError: { command: string; exitCode: number };
  /** An unfinished line typed with term_exec: the continuation it answers, or (sh: commands run
   * through `eval`, which sees the whole line) the syntax error it is. */
  unfinished: { command: string; exitCode: number | null };
  heredoc: boolean;
  /** ctrl+z of a foreground job: the exit status the shell reports (null: no hook to report it). */
  suspendExit: number | null;
  killJob: string;
  viMode: [string, string] | null;
  setE: boolean;
  /** The notice the shell prints when a background job ends (null: it prints none in a session). */
  jobNotice: RegExp | null;
}

const busyboxDir = mkdtempSync(join(tmpdir(), "ptyhub-busybox-"));
const shells: ShellCase[] = [
  {
    name: "bash",
    command: "bash",
    via: "shell",
    syntaxError: { command: "echo )", exitCode: 2 },
    unfinished: { command: "if true; then", exitCode: null },
    heredoc: true,
    suspendExit: 148,
    killJob: "kill -9 %1",
    viMode: ["set -o vi", "set -o emacs"],
    setE: true,
    jobNotice: /^\[1\]\+ +Done +sleep 0\.3$/,
  },
  {
    name: "zsh",
    command: "zsh",
    via: "shell",
    syntaxError: { command: "echo )", exitCode: 1 },
    unfinished: { command: "echo (", exitCode: null },
    heredoc: true,
    suspendExit: 148,
    killJob: "kill -9 %1",
    viMode: ["bindkey -v", "bindkey -e"],
    setE: true,
    jobNotice: /^\[1\] +\+ done +sleep 0\.3$/,
  },
  {
    name: "fish",
    command: "fish",
    via: "shell",
    syntaxError: { command: "echo )", exitCode: 127 },
    unfinished: { command: 'echo "abc', exitCode: null },
    heredoc: false,
    suspendExit: 0,
    killJob: "kill -9 (jobs -p)",
    viMode: ["fish_vi_key_bindings", "fish_default_key_bindings"],
    setE: false,
    jobNotice: /^fish: Job 1, 'sleep 0\.3 &' has ended$/,
  },
  {
    name: "dash",
    command: "dash",
    via: "marker",
    syntaxError: { command: "echo )", exitCode: 2 },
    unfinished: { command: "if true; then", exitCode: 2 },
    heredoc: true,
    suspendExit: null,
    killJob: "kill -9 %1",
    viMode: null,
    setE: true,
    jobNotice: null,
  },
];
if (Bun.which("busybox")) {
  // busybox picks the applet from argv[0]: a link named ash is busybox's ash.
  symlinkSync(Bun.which("busybox")!, join(busyboxDir, "ash"));
  shells.push({
    name: "busybox ash",
    command: join(busyboxDir, "ash"),
    via: "marker",
    syntaxError: { command: "echo )", exitCode: 2 },
    unfinished: { command: "if true; then", exitCode: 2 },
    heredoc: true,
    suspendExit: null,
    killJob: "kill -9 %1",
    viMode: ["set -o vi", "set +o vi"],
    setE: true,
    jobNotice: null,
  });
} else console.warn("busybox is not installed: its column of the matrix is skipped");

let sessionNo = 0;
async function openShell(sh: ShellCase): Promise<string> {
  const name = `m${++sessionNo}`;
  await host.open({ name, command: sh.command, cwd: busyboxDir }, ctx);
  return name;
}

async function timed<T>(run: () => Promise<T>): Promise<{ r: T; ms: number }> {
  const t0 = performance.now();
  const r = await run();
  return { r, ms: performance.now() - t0 };
}

describe.each(shells)("$name", (sh) => {
  let s = "";
  const run = (command: string) => host.exec({ session: s, command, ...exec }, ctx);
  const done = (r: ExecResult, output: string, exitCode = 0) =>
    expect(r).toMatchObject({ status: "done", exit_code: exitCode, output, via: sh.via });

  test("a syntax error ends at once with the shell's exit code, and the session is not wedged", async () => {
    s = await openShell(sh);
    const { r, ms } = await timed(() => run(sh.syntaxError.command));
    expect(r).toMatchObject({ status: "done", exit_code: sh.syntaxError.exitCode, state: "prompt" });
    expect(r.output.length).toBeGreaterThan(0);
    expect(ms).toBeLessThan(PROMPTLY_MS);
    // The line: arithmetic in POSIX shells, a syntax error in fish.
    const arith = await run("echo in-$((2+3))");
    if (sh.name === "fish") expect(arith).toMatchObject({ status: "done", exit_code: 127 });
    else done(arith, "in-5");
    done(await run("echo fine"), "fine");
  });

  test("an unfinished line: status input, state continuation, a hint; ctrl+c or the rest ends it", async () => {
    const { r, ms } = await timed(() => run(sh.unfinished.command));
    expect(ms).toBeLessThan(PROMPTLY_MS);
    if (sh.unfinished.exitCode === null) {
      expect(r).toMatchObject({ status: "input", state: "continuation", via: "prompt", exit_code: null });
      expect(r.hint).toContain("ctrl+c");
      await expect(run("echo busy")).rejects.toMatchObject({ code: "SESSION_BUSY" });
      const cancel = await host.send({ session: s, keys: ["ctrl+c"], ...send }, ctx);
      expect(cancel.state).toBe("prompt");
    } else {
      expect(r).toMatchObject({ status: "done", exit_code: sh.unfinished.exitCode, via: "marker" });
    }
    // Typed with term_send, an open quote waits at the continuation prompt in every shell.
    const open = await timed(() => host.send({ session: s, text: 'echo "abc', ...send }, ctx));
    expect(open.r).toMatchObject({ state: "continuation", via: "prompt" });
    expect(open.r.output).toBe("");
    expect(open.ms).toBeLessThan(PROMPTLY_MS);
    const rest = await host.send({ session: s, text: 'def"', ...send }, ctx);
    expect(rest.state).toBe("prompt");
    expect(rest.output).toContain("abc\ndef");
    done(await run("echo after"), "after");
  });

  test("clear, tput clear, printf ESC[2J, reset: output after the clear is kept, and before it", async () => {
    // The clear scrolls the screen into history (as VTE does): nothing the command printed is lost.
    done(await run("echo before; clear; echo after-clear"), "before\nafter-clear");
    done(await run("printf '\\033[2J\\033[H'; echo x"), "x");
    done(await run("tput clear; echo tc"), "tc");
    done(await run("reset; echo rs"), "rs");
  });

  test("heredoc, a line wider than the terminal, wide and emoji characters, CRLF output", async () => {
    if (sh.heredoc) done(await run("cat <<EOF\nhello heredoc\nEOF"), "hello heredoc");
    done(await run("printf '%0300d\\n' 0"), "0".repeat(300));
    const long = "y".repeat(250);
    done(await run(`echo ${long}`), long);
    done(await run("echo '日本語 🎉👍 ok'"), "日本語 🎉👍 ok");
    done(await run("printf 'a\\r\\nb\\r\\n'"), "a\nb");
  });

  test("a nested shell answers input at its prompt, runs commands; exiting it comes back with the exit code", async () => {
    const { r, ms } = await timed(() => run("bash --norc"));
    expect(r).toMatchObject({ status: "input", via: "prompt", exit_code: null, state: "prompt" });
    expect(r.hint).toContain("bash");
    expect(ms).toBeLessThan(PROMPTLY_MS);
    // The nested bash got the hooks: term_exec works in it, with bash's own exit codes.
    expect(await run("echo inner; false")).toMatchObject({
      status: "done",
      exit_code: 1,
      output: "inner",
      via: "shell",
    });
    const back = await host.send({ session: s, text: "exit 4", ...send }, ctx);
    expect(back.exit_code).toBe(4);
    expect(back.state).toBe("prompt");
    done(await run("echo back"), "back");
  });

  test("stty -echo: output is still exact", async () => {
    done(await run("stty -echo"), "");
    done(await run("echo hidden-echo"), "hidden-echo");
    done(await run("stty echo"), "");
  });

  test("a background job finishing during the next command: its notice is not that command's output", async () => {
    expect(await run("sleep 0.3 &")).toMatchObject({ status: "done", exit_code: 0 });
    const r = await run("sleep 1; echo next");
    done(r, "next");
    if (sh.jobNotice) {
      expect(r.job_notices).toHaveLength(1);
      expect(r.job_notices![0]).toMatch(sh.jobNotice);
    } else expect(r.job_notices).toBeUndefined();
    // The same for a command line typed with term_send that the shell reports done.
    expect(await run("sleep 0.3 &")).toMatchObject({ status: "done", exit_code: 0 });
    // A pattern that never comes: the wait ends when the shell reports the command done.
    const sent = await host.send({ session: s, text: "sleep 1; echo sent", until: "NEVER_PRINTED", ...send }, ctx);
    if (sh.via === "shell") {
      expect(sent).toMatchObject({ via: "shell", exit_code: 0, output: "sent", matched: null });
      if (sh.jobNotice) expect(sent.job_notices?.[0]).toMatch(sh.jobNotice);
    }
    // The job table itself is what `jobs` prints: kept as its output.
    expect(await run("sleep 30 &")).toMatchObject({ status: "done", exit_code: 0 });
    const listed = await run("jobs");
    expect(listed.output).toContain("sleep 30");
    expect(listed.job_notices).toBeUndefined();
    expect(await run(sh.killJob)).toMatchObject({ status: "done", exit_code: 0 });
    // Reaped, so the job table is empty again for the tests after this one (job numbers restart).
    expect(await run("wait")).toMatchObject({ status: "done" });
    done(await run("echo after-jobs"), "after-jobs");
  });

  test("ctrl+z of a foreground job ends the wait at once; the job can be killed", async () => {
    const started = await host.send({ session: s, text: "sleep 30", wait_ms: 500, max_tokens: 4000 }, ctx);
    expect(started.state).toBe("running");
    const { r, ms } = await timed(() => host.send({ session: s, keys: ["ctrl+z"], ...send }, ctx));
    expect(ms).toBeLessThan(PROMPTLY_MS);
    expect(r.state).toBe("prompt");
    expect(r.exit_code).toBe(sh.suspendExit);
    expect(await run(sh.killJob)).toMatchObject({ status: "done", exit_code: 0 });
  });

  test("a send waiting for `until` ends when the command ends, with its exit code", async () => {
    const { r, ms } = await timed(() =>
      host.send({ session: s, text: "sleep 0.3; false", until: "NEVER_PRINTED", ...send }, ctx),
    );
    expect(ms).toBeLessThan(PROMPTLY_MS);
    expect(r.matched).toBeNull();
    // sh has no hook for a line typed with term_send: it tells only by drawing its prompt again.
    if (sh.via === "shell") expect(r).toMatchObject({ via: "shell", exit_code: 1 });
    else expect(r).toMatchObject({ via: "prompt", exit_code: null, state: "prompt" });
  });

  test.if(sh.viMode !== null)("vi editing mode", async () => {
    const [on, off] = sh.viMode!;
    await run(on);
    done(await run("echo vi-ok"), "vi-ok");
    done(await run("echo 'multi\nline'"), "multi\nline");
    await run(off);
  });

  test("exit and set -e end the shell: via exit, with its code", async () => {
    await host.close({ session: s }, ctx);
    const e = await openShell(sh);
    expect(await host.exec({ session: e, command: "exit 3", ...exec }, ctx)).toMatchObject({
      status: "done",
      exit_code: 3,
      via: "exit",
      state: "exited",
    });
    await host.close({ session: e }, ctx);
    if (!sh.setE) return;
    const f = await openShell(sh);
    expect(await host.exec({ session: f, command: "set -e; false", ...exec }, ctx)).toMatchObject({
      status: "done",
      exit_code: 1,
      via: "exit",
    });
    await host.close({ session: f }, ctx);
  });

  test("exec bash: the new shell gets the hooks, so the session is not left busy", async () => {
    const e = await openShell(sh);
    const { r, ms } = await timed(() => host.exec({ session: e, command: "exec bash --norc", ...exec }, ctx));
    expect(r).toMatchObject({ status: "input", via: "prompt", exit_code: null, state: "prompt", output: "" });
    expect(ms).toBeLessThan(PROMPTLY_MS);
    const again = await host.exec({ session: e, command: "echo replaced; (exit 7)", ...exec }, ctx);
    expect(again).toMatchObject({ status: "done", exit_code: 7, output: "replaced", via: "shell" });
    expect(await host.exec({ session: e, command: "exit 3", ...exec }, ctx)).toMatchObject({
      status: "done",
      exit_code: 3,
      via: "exit",
      state: "exited",
    });
    await host.close({ session: e }, ctx);
  });
});
