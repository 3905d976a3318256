/** Interactive programs on real PTYs: interrupts, REPLs, vim, pagers, prompts, resize, Unicode. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());
const work = mkdtempSync(join(tmpdir(), "ptyhub-interactive-"));

describe("interactivity", () => {
  test("ctrl+c interrupts sleep 60", async () => {
    await host.open({ name: "sh1" }, ctx);
    const r = await host.exec({ session: "sh1", command: "sleep 60", timeout_ms: 300, max_tokens: 4000 }, ctx);
    expect(r.status).toBe("running");
    const t0 = performance.now();
    const stop = await host.send({ session: "sh1", keys: ["ctrl+c"], ...sendDefaults }, ctx);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(stop).toMatchObject({ via: "shell", exit_code: 130, state: "prompt" });
  });

  test("python3 REPL: 2+2 → 4", async () => {
    const o = await host.open({ name: "py", command: "python3" }, ctx);
    expect(o.state).toBe("prompt");
    const r = await host.send({ session: "py", text: "2+2", ...sendDefaults }, ctx);
    expect(r.output.split("\n")[0]).toBe("4");
    expect(r.via).toBe("prompt");
    expect(r.state).toBe("prompt");
    const multi = await host.send(
      { session: "py", text: "for i in range(3):\n    print(i*10)\n", until: "^>>> $", ...sendDefaults },
      ctx,
    );
    expect(multi.output).toContain("0\n10\n20");
    await host.close({ session: "py" }, ctx);
  });

  test("node REPL: 2+2 → 4", async () => {
    await host.open({ name: "node", command: "node", args: [] }, ctx);
    const r = await host.send({ session: "node", text: "2+2", until: "^> $", ...sendDefaults }, ctx);
    expect(r.output.split("\n")[0]).toBe("4");
    await host.close({ session: "node" }, ctx);
  });

  test("vim -u NONE: insert text, escape, alt screen shows it, :q! restores the shell", async () => {
    await host.open({ name: "vim", cwd: work }, ctx);
    const start = await host.send({ session: "vim", text: "vim -u NONE -N notes.txt", ...sendDefaults }, ctx);
    expect(start.alt_screen).toBe(true);
    const typed = await host.send(
      { session: "vim", text: "ihello from ptyhub", enter: false, keys: ["escape"], ...sendDefaults },
      ctx,
    );
    expect(typed.alt_screen).toBe(true);
    expect(typed.screen).toContain("hello from ptyhub");
    const screen = await host.read({ session: "vim", mode: "screen", max_tokens: 4000 }, ctx);
    expect(screen.output.split("\n")[0]).toBe("hello from ptyhub");
    expect(screen.alt_screen).toBe(true);
    const quit = await host.send({ session: "vim", text: ":q!", ...sendDefaults }, ctx);
    expect(quit.alt_screen).toBe(false);
    expect(quit.state).toBe("prompt");
    const after = await host.exec({ session: "vim", command: "echo back in the shell", ...defaults }, ctx);
    expect(after.output).toBe("back in the shell");
  });

  test("less and git log (with a pager) report state pager", async () => {
    writeFileSync(join(work, "long.txt"), Array.from({ length: 500 }, (_, i) => `row ${i}`).join("\n"));
    await host.open({ name: "pg", cwd: work }, ctx);
    const less = await host.exec({ session: "pg", command: "less long.txt", timeout_ms: 5000, max_tokens: 4000 }, ctx);
    expect(less.status).toBe("input");
    expect(less.state).toBe("pager");
    const q = await host.send({ session: "pg", text: "q", enter: false, ...sendDefaults }, ctx);
    expect(q.state).toBe("prompt");

    const git = [
      "git init -q repo && cd repo && git config user.email t@example.com && git config user.name T",
      'for i in $(seq 1 60); do git commit -q --allow-empty -m "commit number $i"; done',
    ].join(" && ");
    expect((await host.exec({ session: "pg", command: git, ...defaults }, ctx)).exit_code).toBe(0);
    const log = await host.exec(
      { session: "pg", command: "GIT_PAGER=less git log", timeout_ms: 5000, max_tokens: 4000 },
      ctx,
    );
    expect(log.status).toBe("input");
    expect(log.state).toBe("pager");
    expect((await host.read({ session: "pg", mode: "screen", max_tokens: 4000 }, ctx)).output).toContain(
      "commit number 60",
    );
    const q2 = await host.send({ session: "pg", text: "q", enter: false, ...sendDefaults }, ctx);
    expect(q2.state).toBe("prompt");
  });

  test("read -s -p 'Password: ' reports state password; the answer never shows", async () => {
    await host.open({ name: "pw" }, ctx);
    const r = await host.exec(
      {
        session: "pw",
        command: "read -s -p 'Password: ' pw; echo; echo length=${#pw}",
        timeout_ms: 5000,
        max_tokens: 4000,
      },
      ctx,
    );
    expect(r).toMatchObject({ status: "input", state: "password" });
    expect(r.output).toBe("Password:");
    const answered = await host.send({ session: "pw", text: "s3cret-value", ...sendDefaults }, ctx);
    expect(answered.output).toContain("length=12");
    expect(answered.output).not.toContain("s3cret-value");
  });

  test("a [y/N] prompt reports confirm", async () => {
    const r = await host.exec(
      {
        session: "pw",
        command: "read -p 'Delete everything? [y/N] ' a; echo answer=$a",
        timeout_ms: 5000,
        max_tokens: 4000,
      },
      ctx,
    );
    expect(r).toMatchObject({ status: "input", state: "confirm" });
    const done = await host.send({ session: "pw", text: "n", ...sendDefaults }, ctx);
    expect(done.output).toContain("answer=n");
  });

  test("term_resize reaches the program (stty size, SIGWINCH)", async () => {
    await host.resize({ session: "pw", cols: 100, rows: 30 }, ctx);
    expect((await host.exec({ session: "pw", command: "stty size", ...defaults }, ctx)).output).toBe("30 100");
    await host.open({ name: "winch" }, ctx);
    const script =
      "import signal,os,time\nsignal.signal(signal.SIGWINCH, lambda *a: print('WINCH', os.get_terminal_size().columns, flush=True))\nprint('armed', flush=True)\ntime.sleep(60)";
    await host.send({ session: "winch", text: `python3 -c "${script}"`, until: "^armed", ...sendDefaults }, ctx);
    await host.resize({ session: "winch", cols: 90, rows: 20 }, ctx);
    const r = await host.read(
      { session: "winch", mode: "new", until: "WINCH 90", wait_ms: 5000, max_tokens: 4000 },
      ctx,
    );
    expect(r.matched).toBe("WINCH 90");
    await host.close({ session: "winch" }, ctx);
  });

  test("CJK and emoji round-trip through cat, even with a UTF-8 sequence split across writes", async () => {
    const text = "日本語テキスト 你好 🎉👍 ok";
    writeFileSync(join(work, "u.txt"), text + "\n");
    const r = await host.exec({ session: "pw", command: `cat ${join(work, "u.txt")}`, ...defaults }, ctx);
    expect(r.output).toBe(text);
    // Split the bytes of 語 (e8 aa 9e) across two writes with a pause between them.
    const split = await host.exec(
      {
        session: "pw",
        command: "printf '\\xe6\\x97\\xa5\\xe6\\x9c\\xac\\xe8\\xaa'; sleep 0.1; printf '\\x9e!\\n'",
        ...defaults,
      },
      ctx,
    );
    expect(split.output).toBe("日本語!");
    expect(split.output).not.toContain("\uFFFD");
    const typed = await host.send({ session: "pw", text: "cat", ...sendDefaults }, ctx);
    expect(typed.state).toBe("reading");
    const echoed = await host.send({ session: "pw", text: "héllo 世界 🙂", until: "🙂", ...sendDefaults }, ctx);
    expect(echoed.output).toContain("héllo 世界 🙂");
    expect(echoed.output).not.toContain("\uFFFD");
    await host.send({ session: "pw", keys: ["ctrl+d"], ...sendDefaults }, ctx);
  });
});
