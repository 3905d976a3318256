/**
 * The completion engine (src/session/completion.ts) over a scripted backend: every verdict and
 * its `via`, without real shells and without sleeps. The real shells are in the shell matrix.
 */
import { describe, expect, test } from "bun:test";
import { execCommand } from "../../src/session/exec.ts";
import { sendInput } from "../../src/session/send.ts";
import { readSession } from "../../src/session/read.ts";
import { FAKE_NONCE, FakeBackend, fakeSession, mark, prompt } from "../helpers/fake-backend.ts";
import { Session } from "../../src/session/session.ts";
import { awaitCompletion, NOTHING_SETTLE_MS } from "../../src/session/completion.ts";

const exec = { timeout_ms: 5000, max_tokens: 4000 };
const send = { wait_ms: 5000, max_tokens: 4000 };
const CLIENT = "client";

/** A shell that echoes a typed line and then runs `answer(line)` for it. */
function onEnter(fake: FakeBackend, answer: (line: string) => string): void {
  fake.onInput = (input) => {
    if (!input.endsWith("\r")) return;
    const line = input.slice(0, -1);
    fake.emit(line + "\r\n" + answer(line));
  };
}

describe("completion: marks end the wait", () => {
  test("an end mark: done, its exit code, the output between start and end", async () => {
    const { session, fake } = fakeSession();
    onEnter(fake, () => mark("C") + "hi\r\n" + prompt(3));
    const r = await execCommand(session, { command: "echo hi", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", exit_code: 3, via: "shell", output: "hi", state: "prompt" });
  });

  test("marker mode reports via marker", async () => {
    const { session, fake } = fakeSession({ integration: "marker", family: "sh" });
    onEnter(fake, () => mark("C") + "x\r\n" + mark("D;0;/tmp") + "$ " + mark("B"));
    const r = await execCommand(session, { command: "echo x", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", exit_code: 0, via: "marker", output: "x" });
  });

  test("output after a screen clear is the command's output", async () => {
    const { session, fake } = fakeSession();
    onEnter(fake, () => mark("C") + "\x1b[H\x1b[2J\x1b[3Jafter-clear\r\n" + prompt(0));
    const r = await execCommand(session, { command: "clear; echo after-clear", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", exit_code: 0, output: "after-clear" });
  });

  test("the session exiting ends the wait with its exit code", async () => {
    const { session, fake } = fakeSession();
    fake.onInput = (input) => {
      if (!input.endsWith("\r")) return;
      fake.emit("exit 3\r\n" + mark("C"));
      fake.exit(3);
    };
    const r = await execCommand(session, { command: "exit 3", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", exit_code: 3, via: "exit", state: "exited" });
  });

  test("a prompt redrawn on the typed row (a resize) does not end a command", async () => {
    const { session, fake } = fakeSession();
    fake.onInput = (input) => {
      if (!input.endsWith("\r")) return;
      fake.emit("\r$ " + mark("B") + input.slice(0, -1) + "\r\n" + mark("C") + "ran\r\n" + prompt(0));
    };
    const r = await execCommand(session, { command: "echo ran", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", via: "shell", output: "ran" });
  });
});

describe("completion: unfinished and refused lines", () => {
  test("a continuation prompt: status input, state continuation, a hint; the next exec is SESSION_BUSY", async () => {
    const { session, fake } = fakeSession();
    onEnter(fake, () => "> " + mark("P"));
    const r = await execCommand(session, { command: "if true; then", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "input", state: "continuation", via: "prompt", exit_code: null, output: "" });
    expect(r.hint).toContain("ctrl+c");
    expect(r.duration_ms).toBeLessThan(2000);
    await expect(execCommand(session, { command: "echo next", ...exec }, CLIENT)).rejects.toMatchObject({
      code: "SESSION_BUSY",
    });
    // The rest of the line runs the command: one start, one end.
    onEnter(fake, () => mark("C") + "yes\r\n" + prompt(0));
    const rest = await sendInput(session, { text: "echo yes; fi", ...send }, CLIENT);
    expect(rest).toMatchObject({ via: "shell", exit_code: 0, state: "prompt", matched: null });
    expect(rest.output).toBe("yes");
  });

  test("a syntax error reported like a failed command (fish's Enter binding): done, the parser's status", async () => {
    const { session, fake } = fakeSession({ family: "fish" });
    onEnter(fake, () => mark("C") + "fish: command substitutions not allowed here\r\n" + prompt(127));
    const r = await execCommand(session, { command: "echo in-$((2+3))", ...exec }, CLIENT);
    expect(r).toMatchObject({
      status: "done",
      exit_code: 127,
      via: "shell",
      output: "fish: command substitutions not allowed here",
    });
  });

  test("a line dropped without a word (prompt drawn again below, line kept): done, cancelled with ctrl+c", async () => {
    const { session, fake } = fakeSession({ family: "fish" });
    fake.onInput = (input) => {
      if (input === "\x03") return fake.emit("^C\r\n$ " + mark("B"));
      if (!input.endsWith("\r")) return;
      const line = input.slice(0, -1);
      fake.emit(line + "\r\nfish: error here\r\n$ " + mark("B") + line);
    };
    const r = await execCommand(session, { command: "echo in-$((2+3))", ...exec }, CLIENT);
    expect(r).toMatchObject({ status: "done", exit_code: null, via: "prompt", output: "fish: error here" });
    expect(fake.written.at(-1)).toBe("\x03");
    expect(session.state()).toBe("prompt");
  });
});

describe("completion: a wait for `until` never outlives the command", () => {
  test("the command ends without the pattern: via shell, its exit code, matched null", async () => {
    const { session, fake } = fakeSession();
    onEnter(fake, () => {
      queueMicrotask(() => fake.emit(prompt(1)));
      return mark("C");
    });
    const r = await sendInput(session, { text: "sleep 1; false", until: "NEVER", ...send }, CLIENT);
    expect(r).toMatchObject({ via: "shell", exit_code: 1, matched: null, state: "prompt" });
  });

  test("another call's ctrl+c ends the command a pending until waits on", async () => {
    const { session, fake } = fakeSession();
    fake.onInput = (input) => {
      if (input === "\x03") fake.emit("^C\r\n" + prompt(130));
      else if (input.endsWith("\r")) fake.emit(input.slice(0, -1) + "\r\n" + mark("C"));
    };
    const pending = sendInput(session, { text: "sleep 100", until: "NEVER", ...send }, CLIENT);
    const read = readSession(session, { mode: "new", until: "NEVER", wait_ms: 5000, max_tokens: 4000 }, "reader");
    // Let the pending send type its line before the interrupt comes.
    while (!fake.written.includes("sleep 100\r")) await Promise.resolve();
    const stop = await sendInput(session, { keys: ["ctrl+c"], ...send }, "other");
    expect(stop).toMatchObject({ via: "shell", exit_code: 130 });
    expect(await pending).toMatchObject({ via: "shell", exit_code: 130, matched: null });
    expect(await read).toMatchObject({ via: "shell", exit_code: 130, matched: null });
  });

  test("a pattern printed with the end in one chunk is reported as matched, with the exit code", async () => {
    const { session, fake } = fakeSession();
    onEnter(fake, () => mark("C") + "DONE_Y\r\n" + prompt(0));
    const r = await sendInput(session, { text: "echo DONE_Y", until: "DONE_Y", ...send }, CLIENT);
    expect(r).toMatchObject({ via: "until", matched: "DONE_Y", exit_code: 0 });
  });
});

describe("completion: a remote command's start", () => {
  /** A command session over SSH (no integration) whose boot script marks the program's start. */
  function remoteCommand(startMark = true): { session: Session; fake: FakeBackend } {
    const fake = new FakeBackend();
    const session = new Session({
      id: "remote-cmd",
      kind: "ssh",
      target: "fake host",
      backend: fake,
      cols: 80,
      rows: 24,
      integration: "none",
      family: null,
      nonce: FAKE_NONCE,
      persistent: false,
      startMark,
    });
    return { session, fake };
  }

  test("term_open waits through a login slower than the silence it would settle on, then for the output", async () => {
    const { session, fake } = remoteCommand();
    // The scenario is a slow start, so time is its subject: the start mark comes well after the
    // silence that would settle a wait for a program's first output, and the output after it.
    const startAfterMs = NOTHING_SETTLE_MS + 300;
    setTimeout(() => fake.emit(mark("S")), startAfterMs);
    setTimeout(() => fake.emit("remote-42\r\n"), startAfterMs + 50);
    const t0 = Date.now();
    const verdict = await awaitCompletion(session, { since: 0, fallback: "open", typed: null, timeoutMs: 10_000 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(startAfterMs);
    expect({ verdict: verdict.kind, screen: session.emulator.screenLines().join("\n").trim() }).toEqual({
      verdict: "settle",
      screen: "remote-42",
    });
  });

  test("without a start mark due, a program that prints nothing is settled on after the silence", async () => {
    const { session } = remoteCommand(false);
    const verdict = await awaitCompletion(session, { since: 0, fallback: "open", typed: null, timeoutMs: 10_000 });
    expect(verdict.kind).toBe("settle");
  });
});
