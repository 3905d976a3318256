/**
 * The shell-integration hooks a session's shell sources are exactly ptyhub's (issue 23, item 7):
 * checked every time a session starts, with links refused rather than followed, in a directory
 * that is ours; and a private directory made by another user is refused with a hint naming the
 * variable that moves it. Real shells source the files; another user is uid 65534 (as root).
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtimeDir } from "../../src/paths.ts";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());
const savedRuntime = process.env.XDG_RUNTIME_DIR;
afterEach(() => {
  process.env.XDG_RUNTIME_DIR = savedRuntime;
});

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** A bash.rc of an attacker's: it leaves a file behind when sourced. */
function attackerRc(flag: string): string {
  const dir = mkdtempSync(join(tmpdir(), "attacker-"));
  const rc = join(dir, "bash.rc");
  writeFileSync(rc, `echo pwned > ${flag}\n`);
  return rc;
}

function hookDir(): string {
  const name = readdirSync(runtimeDir()).find((n) => n.startsWith("shell-"));
  if (!name) throw new Error("no hook directory was written");
  return join(runtimeDir(), name);
}

async function openAndRun(name: string): Promise<Record<string, unknown>> {
  await host.open({ name, command: "bash" }, ctx);
  const r = await host.exec({ session: name, command: "echo hooked", ...defaults }, ctx);
  await host.close({ session: name }, ctx);
  return r as unknown as Record<string, unknown>;
}

describe("hook files are checked every time a session starts", () => {
  test("a bash.rc re-pointed to another file is replaced, never sourced", async () => {
    await openAndRun("first");
    const rc = join(hookDir(), "bash.rc");
    const flag = join(mkdtempSync(join(tmpdir(), "flag-")), "pwned");
    unlinkSync(rc);
    symlinkSync(attackerRc(flag), rc);
    const r = await openAndRun("second");
    expect(r).toMatchObject({ status: "done", via: "shell", output: "hooked" });
    expect(existsSync(flag)).toBe(false);
    expect(lstatSync(rc).isSymbolicLink()).toBe(false);
  });

  test("a bash.rc whose text changed is written anew", async () => {
    await openAndRun("third");
    const rc = join(hookDir(), "bash.rc");
    const flag = join(mkdtempSync(join(tmpdir(), "flag-")), "pwned");
    writeFileSync(rc, `echo pwned > ${flag}\n`, { mode: 0o600 });
    const r = await openAndRun("fourth");
    expect(r).toMatchObject({ status: "done", via: "shell", output: "hooked" });
    expect(existsSync(flag)).toBe(false);
  });

  test("a runtime directory that is a symbolic link is refused, naming XDG_RUNTIME_DIR", async () => {
    const base = mkdtempSync(join(tmpdir(), "xdg-"));
    const elsewhere = mkdtempSync(join(tmpdir(), "planted-"));
    symlinkSync(elsewhere, join(base, "ptyhub"));
    process.env.XDG_RUNTIME_DIR = base;
    const opened = host.open({ name: "linked", command: "bash" }, ctx);
    await expect(opened).rejects.toMatchObject({ message: expect.stringContaining("symbolic link") });
    await expect(host.open({ name: "linked", command: "bash" }, ctx)).rejects.toMatchObject({
      hint: expect.stringContaining("XDG_RUNTIME_DIR"),
    });
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(base, { recursive: true });
  });
});

describe.if(isRoot)("a private directory made by another user", () => {
  test("the hook directory: refused, and the hint names XDG_RUNTIME_DIR", async () => {
    const base = mkdtempSync(join(tmpdir(), "xdg-"));
    mkdirSync(join(base, "ptyhub"), { mode: 0o700 });
    chownSync(join(base, "ptyhub"), NOBODY, NOBODY);
    process.env.XDG_RUNTIME_DIR = base;
    await expect(host.open({ name: "theirs", command: "bash" }, ctx)).rejects.toMatchObject({
      message: expect.stringContaining("belongs to another user"),
      hint: expect.stringContaining("XDG_RUNTIME_DIR"),
    });
    rmSync(base, { recursive: true });
  });

  test("the daemon's directory: refused, and the hint names PTYHUB_SOCKET, not XDG_RUNTIME_DIR", () => {
    const dir = mkdtempSync(join(tmpdir(), "daemon-dir-"));
    chownSync(dir, NOBODY, NOBODY);
    let hint = "";
    try {
      daemonPaths({ PTYHUB_SOCKET: join(dir, "daemon.sock"), HOME: tmpdir() });
    } catch (err) {
      hint = (err as { hint: string }).hint;
    }
    expect(hint).toContain("PTYHUB_SOCKET");
    expect(hint).not.toContain("XDG_RUNTIME_DIR");
    rmSync(dir, { recursive: true });
  });
});
