/**
 * The marks' nonce is out of reach of the programs a session runs (issue 23, item 3): a program
 * that looks everywhere it could be (its ancestors' environment and argv, their open descriptors,
 * the files in ptyhub's runtime and hook directory) finds nothing, in every integrated shell. And
 * the guard judges a line by the shell's real working directory, not by one a forged end mark set.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtimeDir } from "../../src/paths.ts";
import { EDITED, gitRepo } from "../guard/repo.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

/**
 * Collects every byte a program can read about the processes above it and the hook directory
 * into DUMP; counts what it read, so a test can tell it looked. Descriptors that block (a pipe
 * nobody writes) are read non-blocking; sockets cannot be opened through /proc (ENXIO), counted.
 */
const HUNTER = String.raw`
import os, sys
dump, hookdir, host = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = open(dump, "wb")
seen = {"environ": 0, "cmdline": 0, "fd": 0, "fd_refused": 0, "file": 0}
def grab(path, kind):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        if kind == "fd": seen["fd_refused"] += 1
        return
    try:
        data = os.read(fd, 1 << 20)
        out.write(b"\n== " + path.encode() + b"\n" + data)
        seen[kind] += 1
    except OSError:
        pass
    finally:
        os.close(fd)
pid = os.getpid()
while pid > 1:
    for kind in ("environ", "cmdline"):
        grab("/proc/%d/%s" % (pid, kind), kind)
    # The host's own descriptors (the test process: pipes to the runner) are left alone: reading
    # a pipe takes its bytes from whoever waits on them.
    try:
        for fd in os.listdir("/proc/%d/fd" % pid) if pid != host else []:
            grab("/proc/%d/fd/%s" % (pid, fd), "fd")
    except OSError:
        pass
    with open("/proc/%d/stat" % pid) as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
for root, dirs, files in os.walk(hookdir):
    for name in files:
        grab(os.path.join(root, name), "file")
out.close()
print("hunted", " ".join("%s=%d" % kv for kv in sorted(seen.items())))
`;

const shells = ["bash", "zsh", "sh"];
if (Bun.which("fish")) shells.push("fish");
else console.warn("fish is not installed: its nonce test is skipped");

describe("a program in the session cannot find the nonce", () => {
  test.each(shells)("%s", async (shell) => {
    const dir = mkdtempSync(join(tmpdir(), `ptyhub-hunt-${shell}-`));
    const script = join(dir, "hunt.py");
    writeFileSync(script, HUNTER);
    const name = `hunt-${shell}`;
    await host.open({ name, command: shell, cwd: dir }, ctx);
    const nonce = host.manager.get(name).nonce;
    const dump = join(dir, "dump");
    const r = await host.exec(
      { session: name, command: `python3 hunt.py ${dump} ${runtimeDir()} ${process.pid}`, ...defaults },
      ctx,
    );
    expect(r).toMatchObject({ status: "done", exit_code: 0 });
    // It did look: at the shell's environment and argv, descriptors, and the hook scripts.
    expect(r.output).toMatch(/environ=[1-9].*file=[1-9]/);
    const found = readFileSync(dump, "latin1");
    expect(found).toContain(`PTYHUB_SESSION=${name}`);
    expect(found).toContain("__ptyhub_precmd");
    expect(found).not.toContain(nonce);
    // The marks still work: the shell has the nonce.
    const after = await host.exec({ session: name, command: "echo still-marked", ...defaults }, ctx);
    expect(after).toMatchObject({ status: "done", exit_code: 0, output: "still-marked" });
    expect(after.via).toBe(shell === "sh" ? "marker" : "shell");
    await host.close({ session: name }, ctx);
  });
});

describe("the guard judges by the shell's real working directory", () => {
  test("an end mark that moved the recorded cwd does not move the judgement", async () => {
    const dirty = gitRepo(true);
    const clean = gitRepo(false);
    await host.open({ name: "cwd", command: "bash", cwd: dirty }, ctx);
    const nonce = host.manager.get("cwd").nonce;
    // A program that had the nonce anyway (it read the shell's memory) claims the shell moved to
    // `clean`, after the shell's own end mark, then says so in plain text.
    const forge = `(sleep 0.3; printf '\\033]6973;%s;D;0;%s\\007FORGED-%s\\n' ${nonce} ${clean} SENT) &`;
    await host.exec({ session: "cwd", command: forge, ...defaults }, ctx);
    await host.read({ session: "cwd", mode: "new", until: "FORGED-SENT", wait_ms: 20_000, max_tokens: 4000 }, ctx);
    expect(host.manager.get("cwd").cwd).toBe(clean);
    expect(host.manager.get("cwd").judgedCwd).toBe(dirty);
    // The line runs in `dirty`, where it would throw work away: it is stopped (nobody to ask).
    const blocked = host.exec({ session: "cwd", command: "git checkout -- .", ...defaults }, ctx);
    await expect(blocked).rejects.toMatchObject({ code: "BLOCKED_BY_GUARD" });
    expect(readFileSync(join(dirty, "file.txt"), "utf8")).toBe(EDITED);
    await host.close({ session: "cwd" }, ctx);
  });
});
