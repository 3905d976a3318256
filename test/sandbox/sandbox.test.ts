/**
 * Sandboxed sessions on this machine's kernel, through the real MCP server and daemon: a write
 * outside the allowed tree fails, inside it succeeds, reads work everywhere. The session's pid is
 * the shell itself (the launcher exec'd it), and the kernel reports it confined.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopDaemon } from "../helpers/daemon.ts";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";
import { parseLauncherArgs } from "../../src/backend/local/sandbox/launcher.ts";

const abi = landlockAbi();
let mcp: McpClient;
let root: string;
const sessions: string[] = [];
let wsTmp = "";

beforeAll(async () => {
  console.log(`Landlock ABI on this kernel: ${abi} (0: none; the tests below take the matching path)`);
  mcp = await startMcp({ transport: "in-process", config: { shell: "/bin/bash" } });
  root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-test-")));
  mkdirSync(join(root, "work"));
});
afterAll(async () => {
  for (const s of sessions) await mcp.call("term_close", { session: s }).catch(() => undefined);
  await mcp.close();
  await stopDaemon();
});

async function open(name: string, sandbox: string): Promise<Record<string, any>> {
  const r = await mcp.call("term_open", { name, cwd: join(root, "work"), command: "bash", sandbox });
  if (!r.isError) sessions.push(name);
  return r;
}

async function exec(session: string, command: string): Promise<Record<string, any>> {
  const r = await mcp.call("term_exec", { session, command });
  expect(r.isError).toBe(false);
  return r.data;
}

describe("sandbox", () => {
  test.if(abi >= 1)("workspace: writes under cwd and its TMPDIR succeed, elsewhere fail; reads work", async () => {
    const r = await open("sb-ws", "workspace");
    expect(r.isError).toBe(false);
    const status = readFileSync(`/proc/${r.data.pid}/status`, "utf8");
    expect(status).toMatch(/^Name:\s+bash$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);

    expect((await exec("sb-ws", "touch inside && mkdir sub && echo data > sub/f && rm -r sub")).exit_code).toBe(0);
    expect(existsSync(join(root, "work", "inside"))).toBe(true);
    const outside = await exec("sb-ws", `touch ${root}/outside`);
    expect(outside.exit_code).not.toBe(0);
    expect(outside.output).toContain("Permission denied");
    expect(existsSync(join(root, "outside"))).toBe(false);
    expect((await exec("sb-ws", `echo x > ${root}/redirected`)).exit_code).not.toBe(0);
    expect(existsSync(join(root, "redirected"))).toBe(false);

    const tmp = await exec("sb-ws", 'echo "$TMPDIR" && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"');
    expect(tmp.exit_code).toBe(0);
    expect(tmp.output).toContain("ptyhub-sandbox-");
    wsTmp = tmp.output.split("\n")[0];
    expect(
      (await exec("sb-ws", "head -c 20 /etc/passwd >/dev/null && ls / >/dev/null && echo ok > /dev/tty")).exit_code,
    ).toBe(0);
  });

  test.if(abi >= 1)("read-only: even cwd is not writable; only its TMPDIR is", async () => {
    // The workspace session's private temp dir goes once it has ended, at the next sandboxed open.
    expect(existsSync(wsTmp)).toBe(true);
    expect((await mcp.call("term_close", { session: "sb-ws" })).isError).toBe(false);
    const r = await open("sb-ro", "read-only");
    expect(r.isError).toBe(false);
    expect(existsSync(wsTmp)).toBe(false);
    const inside = await exec("sb-ro", "touch ro-inside");
    expect(inside.exit_code).not.toBe(0);
    expect(existsSync(join(root, "work", "ro-inside"))).toBe(false);
    expect((await exec("sb-ro", 'mktemp && touch "$TMPDIR/x"')).exit_code).toBe(0);
    // Its children are confined too (the restriction is inherited across fork and exec).
    expect(
      (await exec("sb-ro", `bash -c 'touch ${root}/child' || python3 -c 'open("${root}/child2","w")'`)).exit_code,
    ).not.toBe(0);
    expect(existsSync(join(root, "child")) || existsSync(join(root, "child2"))).toBe(false);
  });

  test.if(abi >= 1)(
    "a shell started in place of the session's gets ptyhub's hooks, though their dir is hidden",
    async () => {
      const r = await open("sb-exec", "read-only");
      expect(r.isError).toBe(false);
      // `exec bash --norc`: a shell without hooks; term_exec re-installs them from a script it writes
      // for this session (reintegrate.ts), which the session must be able to read.
      await mcp.call("term_send", { session: "sb-exec", text: "exec bash --norc", keys: ["enter"] });
      const after = await mcp.call("term_exec", { session: "sb-exec", command: "echo hooked; false" });
      expect(after.error ?? null).toBeNull();
      expect(after.data.status).toBe("done");
      expect(after.data.exit_code).toBe(1);
      expect(after.data.output).toContain("hooked");
    },
  );

  test.if(abi === 0)("without Landlock, term_open refuses with SPAWN_FAILED and a hint", async () => {
    const r = await open("sb-none", "workspace");
    expect(r.error?.code).toBe("SPAWN_FAILED");
    expect(r.error!.hint).toContain("Landlock");
  });

  test("sandbox with ssh, or an unknown mode, is INVALID_ARGUMENT and starts nothing", async () => {
    const ssh = await mcp.call("term_open", { name: "sb-ssh", ssh: { host: "127.0.0.1" }, sandbox: "workspace" });
    expect(ssh.error?.code).toBe("INVALID_ARGUMENT");
    const bad = await mcp.call("term_open", { name: "sb-bad", sandbox: "strict" });
    expect(bad.error?.code).toBe("INVALID_ARGUMENT");
    const list = await mcp.call("term_list", {});
    expect(list.data.sessions.map((s: { session: string }) => s.session)).not.toContain("sb-ssh");
  });

  test("the launcher verb's arguments", () => {
    expect(parseLauncherArgs(["workspace", "--write", "/a", "--write", "/dev/null", "--", "bash", "-l"])).toEqual({
      mode: "workspace",
      writable: ["/a", "/dev/null"],
      hidden: [],
      shown: [],
      argv: ["bash", "-l"],
    });
    const hiding = ["read-only", "--write", "/t", "--hide", "/h", "--show", "/h/s", "--", "sh"];
    expect(parseLauncherArgs(hiding)).toEqual({
      mode: "read-only",
      writable: ["/t"],
      hidden: ["/h"],
      shown: ["/h/s"],
      argv: ["sh"],
    });
    expect(parseLauncherArgs(["read-only", "constructor", "/x", "--", "sh"])).toBeNull();
    expect(parseLauncherArgs(["strict", "--", "bash"])).toBeNull();
    expect(parseLauncherArgs(["read-only", "--write", "/a"])).toBeNull();
    expect(parseLauncherArgs(["read-only", "--"])).toBeNull();
  });
});
