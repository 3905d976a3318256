/**
 * Issue 21: a wait ends because something said so. Each case here once ended early or returned
 * old output as new: a prompt still being drawn taken for a dropped line, an interrupt answered
 * before the shell's end mark, `until` blind to output that came before the call, an echo taken
 * for new output or matched by `until` when a program re-printed typed-ahead input.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";
import { waitFor } from "../../src/session/wait.ts";

const host = newHost();
afterAll(() => host.shutdown());

describe("waits that end only on what said so", () => {
  test("a command typed while the first prompt is still being drawn is done only at its own end", async () => {
    // Every prompt takes 0.5 s to draw, as on a loaded machine: term_open returns at the first
    // mark, so the command is typed ahead of the prompt that then draws below its echo.
    const env = { PROMPT_COMMAND: "sleep 0.5" };
    await host.open({ name: "slow", env }, ctx);
    const r = await host.exec({ session: "slow", command: "echo hello; false", ...defaults }, ctx);
    expect(r).toMatchObject({ status: "done", exit_code: 1, output: "hello", via: "shell" });
    await host.close({ session: "slow" }, ctx);
    await host.open({ name: "slow2", env }, ctx);
    const e = await host.exec(
      { session: "slow2", command: "exec env -u PROMPT_COMMAND bash --norc", ...defaults },
      ctx,
    );
    expect(e).toMatchObject({ status: "input", exit_code: null });
    await host.close({ session: "slow2" }, ctx);
  });
});

describe("an interrupt frees the shell before term_send returns", () => {
  test("ctrl+c on a running loop, then term_exec runs at once (no SESSION_BUSY)", async () => {
    await host.open({ name: "loop" }, ctx);
    // The loop takes 0.6 s, silent, to end after ctrl+c (as a build cleaning up, or any program
    // on a loaded machine): longer than a settle, so the send once returned before the end mark.
    const loop = `bash -c 'trap "sleep 0.6; exit 130" INT; while true; do echo tick; sleep 0.05; done'`;
    const r = await host.exec({ session: "loop", command: loop, timeout_ms: 1200, max_tokens: 4000 }, ctx);
    expect(r.status).toBe("running");
    const s = await host.send({ session: "loop", keys: ["ctrl+c"], ...sendDefaults }, ctx);
    expect(s).toMatchObject({ via: "shell", exit_code: 130 });
    const ok = await host.exec({ session: "loop", command: "echo ok", ...defaults }, ctx);
    expect(ok).toMatchObject({ status: "done", output: "ok", exit_code: 0 });
    await host.close({ session: "loop" }, ctx);
  });

  test("term_exec right after an interrupt sent without waiting waits for the end mark", async () => {
    await host.open({ name: "loop2" }, ctx);
    const loop = `bash -c 'trap "sleep 0.6; exit 130" INT; while true; do echo tick; sleep 0.05; done'`;
    const r = await host.exec({ session: "loop2", command: loop, timeout_ms: 1200, max_tokens: 4000 }, ctx);
    expect(r.status).toBe("running");
    // wait_ms 0: the send returns at once, before the loop has ended.
    await host.send({ session: "loop2", keys: ["ctrl+c"], wait_ms: 0, max_tokens: 4000 }, ctx);
    const ok = await host.exec({ session: "loop2", command: "echo ok", ...defaults }, ctx);
    expect(ok).toMatchObject({ status: "done", output: "ok", exit_code: 0 });
    await host.close({ session: "loop2" }, ctx);
  });
});

describe("term_read until: over what this client has not read yet", () => {
  test("unread output from before the call matches, with the exit code; read output never does", async () => {
    await host.open({ name: "rd" }, ctx);
    const r = await host.exec(
      { session: "rd", command: "sleep 0.3; echo LAST-$((3+4))", timeout_ms: 100, max_tokens: 4000 },
      ctx,
    );
    expect(r.status).toBe("running");
    // Barrier: the shell's end mark, so the line and the end are both there before the read.
    const session = host.manager.get("rd");
    await waitFor(session, () => (session.phase === "prompt" ? { done: true } : null), { timeoutMs: 10_000 });
    const read = await host.read({ session: "rd", mode: "new", until: "LAST-7", wait_ms: 5000, max_tokens: 4000 }, ctx);
    expect(read).toMatchObject({ via: "until", matched: "LAST-7", exit_code: 0 });
    expect(read.output).toContain("LAST-7");
    // Now read: the same pattern waits for new output only.
    const again = await host.read({ session: "rd", mode: "new", until: "LAST-7", wait_ms: 300, max_tokens: 4000 }, ctx);
    expect(again).toMatchObject({ via: "timeout", matched: null });
    await host.close({ session: "rd" }, ctx);
  });
});

describe("term_read mode new: the echo of typed input is not new output to settle on", () => {
  test("a reader whose unread output is only a command line's echo waits for the command's output", async () => {
    await host.open({ name: "bg" }, ctx);
    const reader = { clientId: "reader" };
    await host.read({ session: "bg", mode: "new", wait_ms: 0, max_tokens: 4000 }, reader);
    // Another client types a command that prints after 1 s, and does not wait for it.
    await host.send({ session: "bg", text: "sleep 1; echo bg-$((1+1))-done", wait_ms: 300, max_tokens: 4000 }, ctx);
    const r = await host.read({ session: "bg", mode: "new", wait_ms: 10_000, max_tokens: 4000 }, reader);
    expect(r.output).toContain("bg-2-done");
    await host.close({ session: "bg" }, ctx);
  });
});

describe("until never matches typed input a program echoes late", () => {
  test("python re-printing a line typed ahead while it was busy does not match; the real output does", async () => {
    await host.open({ name: "py5", command: "python3" }, ctx);
    await host.send({ session: "py5", text: "import time", until: ">>> $", ...sendDefaults }, ctx);
    // Busy for 1 s: the next line is typed ahead, echoed by the tty now and by the REPL later.
    await host.send({ session: "py5", text: "time.sleep(1)", wait_ms: 200, max_tokens: 4000 }, ctx);
    const t0 = performance.now();
    const r = await host.send(
      { session: "py5", text: 'time.sleep(1); print("MARK")', until: "MARK", wait_ms: 10_000, max_tokens: 4000 },
      ctx,
    );
    expect(r.via).toBe("until");
    expect(performance.now() - t0).toBeGreaterThan(1500);
    expect(r.output).toMatch(/^MARK$/m);
    await host.close({ session: "py5" }, ctx);
  });

  test("a REPL that starts after the line was typed: its banner and the answer, not the echo", async () => {
    // The line is typed while python is not started yet: the tty echoes it, then come the banner,
    // the first prompt with the REPL's own echo of the line (its late echo) and the answer.
    await host.open({ name: "py6" }, ctx);
    const started = await host.exec(
      { session: "py6", command: "sleep 1; python3", timeout_ms: 100, max_tokens: 4000 },
      ctx,
    );
    expect(started.status).toBe("running");
    const r = await host.send(
      { session: "py6", text: "print(4950)", until: "^>>> $", wait_ms: 10_000, max_tokens: 4000 },
      { clientId: "other-client" },
    );
    expect(r.via).toBe("until");
    // The banner came after the send: new output, so it is here (left out, it would be lost to
    // every later read). Neither echo of the line is.
    expect(r.output).toMatch(/^Python 3[\s\S]*^4950\n>>>$/m);
    expect(r.output).not.toContain("print(4950)");
    await host.close({ session: "py6" }, ctx);
  });
});

describe("term_open of a program still working after its first output", () => {
  test("a banner, then 1 s on the CPU before the prompt (python importing readline): waits for it", async () => {
    const script =
      "print('banner', flush=True)\nimport time\nt=time.time()\nwhile time.time()-t<1: pass\ninput('ready> ')";
    const o = await host.open({ name: "late", command: "python3", args: ["-c", script] }, ctx);
    expect(o.state).toBe("prompt");
    expect(o.output).toContain("ready>");
    await host.close({ session: "late" }, ctx);
  });
});

describe("a command's exit code is told once per client", () => {
  test("term_read after term_exec, and a second read after the one that saw the end, say no exit code", async () => {
    await host.open({ name: "once" }, ctx);
    const done = await host.exec({ session: "once", command: "bash -c 'exit 4'", ...defaults }, ctx);
    expect(done).toMatchObject({ status: "done", exit_code: 4 });
    // term_exec told it: the prompt after it is all a read finds, and no command ended there.
    const after = await host.read({ session: "once", mode: "new", wait_ms: 0, max_tokens: 4000 }, ctx);
    expect(after.exit_code).toBeNull();

    const r = await host.exec(
      {
        session: "once",
        command: "sleep 0.3; bash -c 'exit 5'",
        timeout_ms: 100,
        max_tokens: 4000,
      },
      ctx,
    );
    expect(r.status).toBe("running");
    // Barrier: the shell's end mark, so the end is in the unread output before the read.
    const session = host.manager.get("once");
    await waitFor(session, () => (session.phase === "prompt" ? { done: true } : null), { timeoutMs: 10_000 });
    const first = await host.read({ session: "once", mode: "new", wait_ms: 0, max_tokens: 4000 }, ctx);
    expect(first.exit_code).toBe(5);
    const second = await host.read({ session: "once", mode: "new", wait_ms: 0, max_tokens: 4000 }, ctx);
    expect(second.exit_code).toBeNull();
    await host.close({ session: "once" }, ctx);
  });
});
