/** Session lifecycle: ids, limits, idle expiry, closing whole process groups, bad input. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost({ max_sessions: 4 });
afterAll(() => host.shutdown());

function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    const stat = require("node:fs").readFileSync(`/proc/${pid}/stat`, "latin1") as string;
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

describe("sessions", () => {
  test("ids are validated: '../x', 'a;b' and 65 characters are INVALID_ARGUMENT", async () => {
    for (const name of ["../x", "a;b", "x".repeat(65), "", "a b"]) {
      await expect(host.open({ name }, ctx)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    }
    await expect(host.read({ session: "../x", mode: "new", max_tokens: 10 }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    expect(host.manager.size).toBe(0);
  });

  test("duplicate names, unknown sessions, bad cwd and bad programs get their own codes", async () => {
    await host.open({ name: "dup" }, ctx);
    await expect(host.open({ name: "dup" }, ctx)).rejects.toMatchObject({ code: "SESSION_EXISTS" });
    await expect(host.send({ session: "nope", text: "x", ...sendDefaults }, ctx)).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
    });
    await expect(host.open({ cwd: "/definitely/not/here" }, ctx)).rejects.toMatchObject({ code: "CWD_NOT_FOUND" });
    await expect(host.open({ cwd: "relative/dir" }, ctx)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(host.open({ command: "/no/such/program", args: [] }, ctx)).rejects.toMatchObject({
      code: "SPAWN_FAILED",
    });
    await expect(host.open({ env: { "BAD-NAME": "x" } }, ctx)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await host.close({ session: "dup" }, ctx);
  });

  test("the session limit answers SESSION_LIMIT", async () => {
    const names = ["l1", "l2", "l3", "l4"];
    // Opened together: each silent `cat` is ready only after a quiet period, and four of them one
    // after another outlast the test's time on a loaded machine (the limit is what is tested here).
    await Promise.all(names.map((name) => host.open({ name, command: "cat" }, ctx)));
    await expect(host.open({ name: "l5", command: "cat" }, ctx)).rejects.toMatchObject({ code: "SESSION_LIMIT" });
    for (const name of names) await host.close({ session: name }, ctx);
  });

  test("term_close ends the whole process group: a 'sleep 300 &' started in the shell is gone", async () => {
    await host.open({ name: "bg" }, ctx);
    const r = await host.exec({ session: "bg", command: "sleep 300 & echo PID=$!", ...defaults }, ctx);
    const jobPid = Number(/PID=(\d+)/.exec(r.output)![1]);
    const shellPid = host.manager.get("bg").pid!;
    expect(alive(jobPid)).toBe(true);
    const closed = await host.close({ session: "bg" }, ctx);
    expect(closed.closed).toBe(true);
    expect(alive(jobPid)).toBe(false);
    expect(alive(shellPid)).toBe(false);
    // Closing again succeeds; an unknown id does not.
    expect(await host.close({ session: "bg" }, ctx)).toMatchObject({ closed: true });
    await expect(host.close({ session: "never-was" }, ctx)).rejects.toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  test("a program that ignores SIGHUP and SIGTERM is killed", async () => {
    await host.open({ name: "stubborn", command: "trap '' HUP TERM; echo ready; while :; do sleep 0.1; done" }, ctx);
    const pid = host.manager.get("stubborn").pid!;
    const t0 = performance.now();
    await host.close({ session: "stubborn", signal: "TERM" }, ctx);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(alive(pid)).toBe(false);
  });

  test("idle sessions are closed after the idle timeout", async () => {
    const idleHost = newHost({ idle_timeout_ms: 1000 });
    try {
      await idleHost.open({ name: "sleepy", command: "cat" }, ctx);
      const pid = idleHost.manager.get("sleepy").pid!;
      await idleHost.manager.closeIdle();
      expect(idleHost.manager.size).toBe(1);
      // The subject: the idle timeout (1000 ms) passes.
      await Bun.sleep(1100);
      await idleHost.manager.closeIdle();
      expect(idleHost.manager.size).toBe(0);
      expect(alive(pid)).toBe(false);
    } finally {
      await idleHost.shutdown();
    }
  });

  test("the environment and cwd given at open reach the program", async () => {
    await host.open({ name: "envs", cwd: "/tmp", env: { PTYHUB_GREETING: "hello there" } }, ctx);
    const r = await host.exec(
      {
        session: "envs",
        command: 'echo "$PTYHUB_GREETING from $(pwd)"; echo nonce=${PTYHUB_NONCE:-unset}',
        ...defaults,
      },
      ctx,
    );
    expect(r.output).toBe("hello there from /tmp\nnonce=unset");
    await host.close({ session: "envs" }, ctx);
  });

  test("term_exec in a program session explains to use term_send", async () => {
    await host.open({ name: "catty", command: "cat" }, ctx);
    await expect(host.exec({ session: "catty", command: "ls", ...defaults }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await host.close({ session: "catty" }, ctx);
  });

  test("invalid regex and key names are rejected before anything is written", async () => {
    await host.open({ name: "val" }, ctx);
    const before = (await host.read({ session: "val", mode: "history", max_tokens: 4000 }, ctx)).output;
    await expect(
      host.send({ session: "val", text: "echo SHOULD_NOT_RUN", until: "([", ...sendDefaults }, ctx),
    ).rejects.toMatchObject({ code: "INVALID_REGEX" });
    await expect(
      host.send({ session: "val", text: "echo SHOULD_NOT_RUN", keys: ["ctrl+nope"], ...sendDefaults }, ctx),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(host.send({ session: "val", ...sendDefaults }, ctx)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    // An absence needs a window: nothing the rejected calls could have written shows up in it.
    await Bun.sleep(200);
    const after = (await host.read({ session: "val", mode: "history", max_tokens: 4000 }, ctx)).output;
    expect(after).toBe(before);
    expect(after).not.toContain("SHOULD_NOT_RUN");
    await host.close({ session: "val" }, ctx);
  });
});
