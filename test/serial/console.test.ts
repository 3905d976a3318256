/**
 * A serial session against a fake board console (fake_device.py) on a socat pty pair: what a
 * person does with picocom — wake the console, log in (password state from the prompt text, no
 * tty flags on a line), page through help (pager state), wait for slow output at a low baud —
 * with the device's echo removed and `newline` deciding what Enter sends.
 */
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ctx, newHost, sendDefaults } from "../helpers/host.ts";
import { fakeConsole, tempDir, type FakeConsole } from "./helpers.ts";

// Lines, shells and socat under a loaded machine: the preload's default did not reach this file
// in a full run (a test was cut at bun's 5 s), so it is set here too.
setDefaultTimeout(30_000);

const host = newHost();
const lines: FakeConsole[] = [];
afterEach(async () => {
  for (const s of host.manager.list()) await host.close({ session: s.session });
  while (lines.length) await lines.pop()!.stop();
});
afterAll(() => host.shutdown());

async function consoleAt(baud?: number): Promise<FakeConsole> {
  const line = await fakeConsole(tempDir(), { baud });
  lines.push(line);
  return line;
}

describe("serial console", () => {
  test("wake, log in, page through help, log out: states come from the prompt text", async () => {
    const line = await consoleAt();
    const open = await host.open({ name: "board", serial: { path: line.path } }, ctx);
    expect(open.kind).toBe("serial");
    expect(open.target).toBe(`${line.path}@115200`);
    expect(open.pid).toBeNull();

    // The console is silent until Enter, like one that finished booting long ago.
    const woke = await host.send({ session: "board", text: "", until: "login: $", ...sendDefaults }, ctx);
    expect(woke.via).toBe("until");
    expect(woke.output).toContain("Debian GNU/Linux 12 board ttyS0");

    const user = await host.send({ session: "board", text: "root", until: "Password: $", ...sendDefaults }, ctx);
    expect(user.state).toBe("password");
    // The device echoed "root": that echo is not output.
    expect(user.output).not.toContain("root");

    const pass = await host.send({ session: "board", text: "secret", until: "# $", ...sendDefaults }, ctx);
    expect(pass.output).toContain("Last login");
    expect(pass.state).toBe("prompt");

    const help = await host.send({ session: "board", text: "help", until: "--More--", ...sendDefaults }, ctx);
    expect(help.state).toBe("pager");
    expect(help.output).toContain("help line 20");
    expect(help.output).not.toContain("help line 21");
    const next = await host.send({ session: "board", keys: ["space"], until: "--More--", ...sendDefaults }, ctx);
    expect(next.output).toContain("help line 40");
    const quit = await host.send({ session: "board", text: "q", enter: false, until: "# $", ...sendDefaults }, ctx);
    expect(quit.state).toBe("prompt");
    expect(quit.output).not.toContain("help line 41");

    const out = await host.send({ session: "board", text: "exit", until: "login: $", ...sendDefaults }, ctx);
    expect(out.output).toContain("logout");
  });

  test("slow output at 1200 baud: `until` waits for the line it names, not a settle", async () => {
    const line = await consoleAt(1200);
    await host.open({ name: "slow", serial: { path: line.path, baud: 1200 } }, ctx);
    // At 1200 baud (10 bits a character) the 45-character banner takes ~0.4 s to arrive.
    const woke = await host.send(
      { session: "slow", text: "", until: "board login: $", ...sendDefaults, wait_ms: 15_000 },
      ctx,
    );
    expect(woke.via).toBe("until");
    await host.send({ session: "slow", text: "root", until: "Password: $", ...sendDefaults, wait_ms: 15_000 }, ctx);
    await host.send({ session: "slow", text: "secret", until: "# $", ...sendDefaults, wait_ms: 15_000 }, ctx);
    const slow = await host.send(
      { session: "slow", text: "slow 8", until: "slow line 7", ...sendDefaults, wait_ms: 15_000 },
      ctx,
    );
    expect(slow.via).toBe("until");
    expect(slow.output.split("\n").filter((l) => l.startsWith("slow line"))).toHaveLength(8);
  });

  for (const [newline, hex] of [
    ["cr", "0d"],
    ["lf", "0a"],
    ["crlf", "0d0a"],
  ] as const) {
    test(`newline ${newline}: Enter reaches the device as ${hex}`, async () => {
      const line = await consoleAt();
      const name = `nl-${newline}`;
      await host.open({ name, serial: { path: line.path, newline } }, ctx);
      await host.send({ session: name, text: "", until: "login: $", ...sendDefaults }, ctx);
      await host.send({ session: name, text: "root", until: "Password: $", ...sendDefaults }, ctx);
      await host.send({ session: name, text: "secret", until: "# $", ...sendDefaults }, ctx);
      const r = await host.send({ session: name, text: "nl", until: "nl=\\w+", ...sendDefaults }, ctx);
      expect(r.matched).toBe(`nl=${hex}`);
    });
  }

  test("term_exec on a console that is no shell says so, and types nothing more", async () => {
    const line = await consoleAt();
    await host.open({ name: "login", serial: { path: line.path } }, ctx);
    await host.send({ session: "login", text: "", until: "login: $", ...sendDefaults }, ctx);
    await expect(
      host.exec({ session: "login", command: "uname", timeout_ms: 5000, max_tokens: 1000 }, ctx),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringContaining("not at a shell prompt"),
    });
  });
});
