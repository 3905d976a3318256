/**
 * The waits that must never be fooled: by the echo of the command, by output that was there
 * before the call, by a pause in the middle of a command, by a prompt split across chunks.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

describe("waits that are never fooled", () => {
  test("term_exec 'sleep 1; echo DONE_X' returns after about 1 s with DONE_X and exit 0", async () => {
    const t0 = performance.now();
    const r = await host.exec({ command: "sleep 1; echo DONE_X", ...defaults }, ctx);
    const elapsed = performance.now() - t0;
    expect(r.status).toBe("done");
    expect(r.exit_code).toBe(0);
    expect(r.via).toBe("shell");
    expect(r.output).toBe("DONE_X");
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5000);
  });

  test("term_send with until 'DONE_Y' does not return on the echo", async () => {
    const t0 = performance.now();
    const r = await host.send({ session: "main", text: "sleep 1; echo DONE_Y", until: "DONE_Y", ...sendDefaults }, ctx);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(r.via).toBe("until");
    expect(r.matched).toBe("DONE_Y");
    expect(r.output.split("\n")[0]).toBe("DONE_Y");
    expect(r.output).not.toContain("echo DONE_Y");
  });

  test("python3 banner left unread: term_send 'print(4950)' until '>>> ' returns 4950", async () => {
    await host.open({ name: "py", command: "python3" }, ctx);
    const r = await host.send(
      { session: "py", text: "print(4950)", until: ">>> ", ...sendDefaults },
      { clientId: "other-client" },
    );
    expect(r.via).toBe("until");
    expect(r.output).toContain("4950");
    expect(r.output).not.toContain("Python 3");
    await host.close({ session: "py" }, ctx);
  });

  test("term_open of a program busy before its prompt (a slow start) waits for the prompt", async () => {
    // 1.5 s on the CPU before anything is printed, as a REPL importing much on a loaded machine.
    const script = "import time\nt=time.time()\nwhile time.time()-t<1.5: pass\ninput('ready> ')";
    const t0 = performance.now();
    const o = await host.open({ name: "slow", command: "python3", args: ["-c", script] }, ctx);
    expect(performance.now() - t0).toBeGreaterThan(1400);
    expect(o.state).toBe("prompt");
    expect(o.output).toContain("ready>");
    // A program that prints nothing but reads the terminal is ready at once: the kernel says so.
    const t1 = performance.now();
    const idle = await host.open({ name: "idle", command: "cat" }, ctx);
    expect(performance.now() - t1).toBeLessThan(1400);
    expect(idle).toMatchObject({ state: "reading", via: "tty" });
    await host.close({ session: "slow" }, ctx);
    await host.close({ session: "idle" }, ctx);
  });

  test("term_exec 'echo a; sleep 2; echo b' is done only after b", async () => {
    const t0 = performance.now();
    const r = await host.exec({ command: "echo a; sleep 2; echo b", ...defaults }, ctx);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1950);
    expect(r.status).toBe("done");
    expect(r.output).toBe("a\nb");
  });

  test("an endless loop times out as running; ctrl+c stops it; the next term_exec works", async () => {
    const r = await host.exec(
      { command: "while true; do echo tick; sleep 0.05; done", timeout_ms: 1500, max_tokens: 4000 },
      ctx,
    );
    expect(r.status).toBe("running");
    expect(r.via).toBe("timeout");
    expect(r.exit_code).toBeNull();
    expect(r.output).toContain("tick");
    await expect(host.exec({ command: "echo busy?", ...defaults }, ctx)).rejects.toMatchObject({
      code: "SESSION_BUSY",
    });
    const stop = await host.send({ session: "main", keys: ["ctrl+c"], ...sendDefaults }, ctx);
    expect(stop.via).toBe("shell");
    expect(stop.exit_code).toBe(130);
    const ok = await host.exec({ command: "echo ok", ...defaults }, ctx);
    expect(ok).toMatchObject({ status: "done", exit_code: 0, output: "ok" });
  });

  test("a prompt arriving in two chunks ('pass', then 50 ms later 'word: ') matches 'password:'", async () => {
    const r = await host.send(
      {
        session: "main",
        text: "printf pass; sleep 0.05; printf 'word: '; read -r x; echo got=$x",
        until: "password:",
        ...sendDefaults,
      },
      ctx,
    );
    expect(r.via).toBe("until");
    expect(r.matched).toBe("password:");
    expect(r.state).toBe("password");
    const done = await host.send({ session: "main", text: "hello", ...sendDefaults }, ctx);
    expect(done.output).toContain("got=hello");
    expect(done.via).toBe("shell");
  });

  test("term_exec 'false' gives exit 1; 'exit 3' ends the session with exit code 3", async () => {
    const f = await host.exec({ command: "false", ...defaults }, ctx);
    expect(f).toMatchObject({ status: "done", exit_code: 1, via: "shell", output: "" });
    await host.open({ name: "ex", command: "bash" }, ctx);
    const e = await host.exec({ session: "ex", command: "exit 3", ...defaults }, ctx);
    expect(e).toMatchObject({ status: "done", exit_code: 3, via: "exit" });
    const list = await host.list(ctx);
    expect(list.find((s) => s.session === "ex")).toMatchObject({ alive: false, exit_code: 3, state: "exited" });
    await expect(host.exec({ session: "ex", command: "echo", ...defaults }, ctx)).rejects.toMatchObject({
      code: "SESSION_EXITED",
    });
    await host.close({ session: "ex" }, ctx);
  });

  test("output that was already on screen never satisfies until", async () => {
    await host.exec({ command: "echo STALE_MARK", ...defaults }, ctx);
    const r = await host.read(
      { session: "main", mode: "new", until: "STALE_MARK", wait_ms: 400, max_tokens: 4000 },
      ctx,
    );
    expect(r.via).toBe("timeout");
    expect(r.matched).toBeNull();
  });

  test("a reader whose unread output holds the typed line's echo waits for the output, not the echo", async () => {
    // One client types; another, who has read nothing since, waits for the line the command prints.
    await host.exec({ command: "true", ...defaults }, { clientId: "echo-reader" });
    await host.send({ session: "main", text: "sleep 0.5; echo ECHO_OR_$((6*7))", wait_ms: 0, max_tokens: 4000 }, ctx);
    const r = await host.read(
      { session: "main", mode: "new", until: "ECHO_OR_", wait_ms: 10_000, max_tokens: 4000 },
      { clientId: "echo-reader" },
    );
    expect(r.via).toBe("until");
    expect(r.output.split("\n")).toContain("ECHO_OR_42");
  });

  test("a forged mark without the nonce does not end a command", async () => {
    const r = await host.exec(
      { command: "printf '\\033]6973;fake;D;0;/\\007'; sleep 0.3; echo real-end", ...defaults },
      ctx,
    );
    expect(r.status).toBe("done");
    expect(r.output).toContain("real-end");
  });

  test("exec keeps state: cd and export persist; cwd is reported", async () => {
    const r = await host.exec({ command: "cd /tmp && export PTYHUB_T=42", ...defaults }, ctx);
    expect(r.cwd).toBe("/tmp");
    const r2 = await host.exec({ command: "echo $PTYHUB_T; pwd", ...defaults }, ctx);
    expect(r2.output).toBe("42\n/tmp");
  });

  test("multi-line commands run as one command with one exit code", async () => {
    const r = await host.exec({ command: "for i in 1 2 3; do\n  echo line$i\ndone\nfalse", ...defaults }, ctx);
    expect(r).toMatchObject({ status: "done", exit_code: 1, output: "line1\nline2\nline3" });
  });

  test("output without a final newline and stderr are captured; the next prompt is not", async () => {
    const r = await host.exec({ command: "echo to-stderr >&2; printf no-newline", ...defaults }, ctx);
    expect(r.output).toBe("to-stderr\nno-newline");
  });
});

describe("a wait never outlives the command it waits on", () => {
  test("term_send until a pattern that never comes returns when the shell reports the end, with the exit code", async () => {
    const t0 = performance.now();
    const r = await host.send(
      { session: "main", text: "sleep 1; false", until: "NEVER_SEEN", wait_ms: 15_000, max_tokens: 4000 },
      ctx,
    );
    expect(r).toMatchObject({ via: "shell", exit_code: 1, matched: null, state: "prompt" });
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  test("in a marker session (dash), a term_read that waits out a term_exec's command ends via marker", async () => {
    await host.open({ name: "dash-marks", command: "dash" }, ctx);
    // term_exec's command carries the markers; it is still running when term_exec returns.
    const running = await host.exec(
      { session: "dash-marks", command: "sleep 0.5; (exit 3)", timeout_ms: 100, max_tokens: 4000 },
      ctx,
    );
    expect(running).toMatchObject({ status: "running", via: "timeout" });
    const read = await host.read(
      { session: "dash-marks", mode: "new", until: "NEVER_SEEN", wait_ms: 15_000, max_tokens: 4000 },
      ctx,
    );
    expect(read).toMatchObject({ via: "marker", exit_code: 3 });
    await host.close({ session: "dash-marks" }, ctx);
  });

  test("another call's ctrl+c ends the command: the pending send and read with until end with 130", async () => {
    // The child prints once it runs in the foreground group, so the ctrl+c reaches it (a ctrl+c
    // typed while bash itself still holds the terminal would be bash's to ignore).
    const command = "sh -c 'echo child-started; exec sleep 60'";
    const pending = host.send(
      { session: "main", text: command, until: "NEVER_SEEN", wait_ms: 30_000, max_tokens: 4000 },
      ctx,
    );
    const reading = host.read(
      { session: "main", mode: "new", until: "NEVER_SEEN", wait_ms: 30_000, max_tokens: 4000 },
      { clientId: "reader" },
    );
    const session = host.manager.get("main");
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!session.emulator.screenLines().includes("child-started")) return;
        off();
        resolve();
      };
      const off = session.onChange(check);
      check();
    });
    const t0 = performance.now();
    const stop = await host.send({ session: "main", keys: ["ctrl+c"], ...sendDefaults }, { clientId: "other" });
    expect(stop).toMatchObject({ via: "shell", exit_code: 130 });
    expect(await pending).toMatchObject({ via: "shell", exit_code: 130, matched: null });
    expect(await reading).toMatchObject({ via: "shell", exit_code: 130, matched: null });
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
