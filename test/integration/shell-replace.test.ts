/**
 * A shell that replaces the session's shell (`exec zsh`) or runs inside it gets ptyhub's hooks,
 * whatever shell it comes from and goes to, and whether it was started with term_exec or typed
 * with term_send; a shell that cannot take them gets an honest SESSION_BUSY, never a wait to the
 * timeout. Real shells on real PTYs.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ctx, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const TIMEOUT_MS = 20_000;
/** "Within a moment": far below TIMEOUT_MS, far above a shell's answer under load. */
const PROMPTLY_MS = 5_000;
const exec = { timeout_ms: TIMEOUT_MS, max_tokens: 4000 };
const send = { wait_ms: TIMEOUT_MS, max_tokens: 4000 };

const binDir = mkdtempSync(join(tmpdir(), "ptyhub-replace-"));
const ash = Bun.which("busybox") ? join(binDir, "ash") : null;
if (ash) symlinkSync(Bun.which("busybox")!, ash);

let sessionNo = 0;
async function openShell(command: string): Promise<string> {
  const name = `r${++sessionNo}`;
  await host.open({ name, command, cwd: binDir }, ctx);
  return name;
}

const targets = [
  { to: "zsh -f", family: "zsh", via: "shell" },
  { to: "fish", family: "fish", via: "shell" },
  // Without its configuration fish never turns bracketed paste on: raw mode alone tells its prompt.
  { to: "fish --no-config", family: "fish", via: "shell" },
  { to: "dash", family: "sh", via: "marker" },
  ...(ash ? [{ to: ash, family: "sh", via: "marker" }] : []),
  { to: "bash -l", family: "bash", via: "shell" },
];

test.each(targets)("exec $to from bash: hooks installed, exit codes exact, then exit ends the session", async (t) => {
  const s = await openShell("bash");
  const t0 = performance.now();
  const r = await host.exec({ session: s, command: `exec ${t.to}`, ...exec }, ctx);
  expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS);
  expect(r).toMatchObject({ status: "input", exit_code: null, via: "prompt", state: "prompt" });
  expect(r.hint).toContain(t.family);
  const ok = await host.exec({ session: s, command: "echo in-new-shell", ...exec }, ctx);
  expect(ok).toMatchObject({ status: "done", exit_code: 0, output: "in-new-shell", via: t.via });
  expect(await host.exec({ session: s, command: "false", ...exec }, ctx)).toMatchObject({
    status: "done",
    exit_code: 1,
    via: t.via,
  });
  expect(await host.exec({ session: s, command: "exit 6", ...exec }, ctx)).toMatchObject({
    status: "done",
    exit_code: 6,
    via: "exit",
  });
  await host.close({ session: s }, ctx);
});

test("exec typed with term_send into a marker (dash) session: the next term_exec installs the hooks", async () => {
  const s = await openShell("dash");
  const typed = await host.send({ session: s, text: "exec bash --norc", ...send }, ctx);
  expect(typed.state).toBe("prompt");
  const r = await host.exec({ session: s, command: "echo via-send; (exit 2)", ...exec }, ctx);
  expect(r).toMatchObject({ status: "done", exit_code: 2, output: "via-send", via: "shell" });
  await host.close({ session: s }, ctx);
});

test("nested shells two deep, each exit returning to the shell below with its exit code", async () => {
  const s = await openShell("zsh");
  const run = (command: string) => host.exec({ session: s, command, ...exec }, ctx);
  expect(await run("dash")).toMatchObject({ status: "input", state: "prompt" });
  expect(await run("echo in-dash")).toMatchObject({ status: "done", output: "in-dash", via: "marker" });
  expect(await run("bash --norc")).toMatchObject({ status: "input", state: "prompt" });
  expect(await run("echo in-bash")).toMatchObject({ status: "done", output: "in-bash", via: "shell" });
  // Back in dash: its marker wrapper reports the nested bash's exit code as the command's.
  expect(await run("exit 5")).toMatchObject({ status: "done", exit_code: 5 });
  expect(await run("echo back-in-dash")).toMatchObject({ status: "done", output: "back-in-dash", via: "marker" });
  expect(await run("exit 6")).toMatchObject({ status: "done", exit_code: 6 });
  // zsh again: typed for zsh (multi-line folding), with its hooks.
  expect(await run("echo back\necho in-zsh")).toMatchObject({
    status: "done",
    exit_code: 0,
    output: "back\nin-zsh",
    via: "shell",
  });
  await host.close({ session: s }, ctx);
});

test("the new shell's job notices are recognised by its own form", async () => {
  const s = await openShell("bash");
  await host.exec({ session: s, command: "exec zsh -f", ...exec }, ctx);
  await host.exec({ session: s, command: "sleep 0.3 &", ...exec }, ctx);
  const r = await host.exec({ session: s, command: "sleep 1; echo next", ...exec }, ctx);
  expect(r).toMatchObject({ status: "done", exit_code: 0, output: "next" });
  expect(r.job_notices?.[0]).toMatch(/^\[1\] +\+ done +sleep 0\.3$/);
  await host.close({ session: s }, ctx);
});

test.if(process.getuid?.() === 0 && Bun.which("su") !== null)(
  "a shell that cannot read the hooks (another user): SESSION_BUSY that says why, promptly",
  async () => {
    const s = await openShell("bash");
    const r = await host.exec({ session: s, command: "exec su nobody -s /bin/bash", ...exec }, ctx);
    expect(r).toMatchObject({ status: "input", exit_code: null, output: "" });
    expect(r.hint).toContain("term_send");
    const t0 = performance.now();
    const busy = host.exec({ session: s, command: "echo never", ...exec }, ctx);
    await expect(busy).rejects.toMatchObject({ code: "SESSION_BUSY" });
    await expect(busy).rejects.toThrow(/without ptyhub's shell integration/);
    expect(performance.now() - t0).toBeLessThan(PROMPTLY_MS + 5_000);
    // term_send still drives it.
    const typed = await host.send({ session: s, text: "echo by-hand", until: "by-hand", ...send }, ctx);
    expect(typed.matched).toBe("by-hand");
    await host.close({ session: s }, ctx);
  },
);

test.if(Bun.which("python3") !== null)(
  "a REPL the command started: SESSION_BUSY that says it waits at its own prompt; leaving it brings the shell back",
  async () => {
    const s = await openShell("bash");
    expect(await host.exec({ session: s, command: "python3 -q", ...exec }, ctx)).toMatchObject({
      status: "input",
      state: "prompt",
    });
    await expect(host.exec({ session: s, command: "1+1", ...exec }, ctx)).rejects.toThrow(/prompt of its own/);
    const left = await host.send({ session: s, text: "quit()", ...send }, ctx);
    expect(left).toMatchObject({ state: "prompt", exit_code: 0 });
    expect(await host.exec({ session: s, command: "echo shell-again", ...exec }, ctx)).toMatchObject({
      status: "done",
      output: "shell-again",
    });
    await host.close({ session: s }, ctx);
  },
);

test("a bash script reading a line with readline (read -e) is not taken for a new shell", async () => {
  const s = await openShell("bash");
  const script = join(binDir, "ask.sh");
  await Bun.write(script, 'read -e -p "answer? " a\necho "got:$a"\n');
  // Raw mode and bracketed paste, with bash leading the foreground group: only its arguments say
  // it runs a script, which must not be sent the hooks' install line.
  const r = await host.exec({ session: s, command: `bash ${script}`, timeout_ms: 3000, max_tokens: 4000 }, ctx);
  expect(r.status).not.toBe("done");
  expect(r.output).not.toContain("[ -r");
  const answered = await host.send({ session: s, text: "yes", until: "got:", ...send }, ctx);
  expect(answered.output).toContain("got:yes");
  await host.close({ session: s }, ctx);
});
