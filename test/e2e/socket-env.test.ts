/**
 * One daemon per user whatever environment a client passes its MCP server: the socket path comes
 * from the uid (or PTYHUB_SOCKET), never from XDG_RUNTIME_DIR or TMPDIR, which clients drop or
 * change (Codex passes only HOME, LANG, PATH, SHELL, TERM and TMPDIR).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { refusePlanted, resolveSocket } from "../../src/daemon-client/daemon-paths.ts";
import { CLI } from "../helpers/mcp-client.ts";

const root = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? "/tmp", "sock-"));
const socket = join(root, "d", "ptyhub.sock");
const home = join(root, "home");
mkdirSync(home, { recursive: true });

/** What Codex hands an MCP server: these variables and nothing else (plus the test run's leak tag). */
function codexEnv(tmpdir: string): Record<string, string> {
  mkdirSync(tmpdir, { recursive: true, mode: 0o700 });
  return {
    HOME: home,
    LANG: "C.UTF-8",
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    SHELL: "/bin/bash",
    TERM: "xterm-256color",
    TMPDIR: tmpdir,
    PTYHUB_SOCKET: socket,
    PTYHUB_TEST_RUN: process.env.PTYHUB_TEST_RUN ?? "",
  };
}

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const stdout = await new Response(proc.stdout).text();
  return { code: await proc.exited, stdout };
}

afterAll(async () => {
  await cli(["daemon", "--stop"], codexEnv(join(root, "tmp-stop")));
});

describe("the daemon socket", () => {
  test("depends on the uid alone: XDG_RUNTIME_DIR and TMPDIR change nothing; PTYHUB_SOCKET overrides", () => {
    const uid = process.getuid!();
    const minimal = resolveSocket({ HOME: home });
    expect(minimal).toBe(`/tmp/ptyhub-${uid}/daemon.sock`);
    expect(resolveSocket({ HOME: home, XDG_RUNTIME_DIR: "/run/user/x", TMPDIR: "/var/tmp/y" })).toBe(minimal);
    expect(resolveSocket({ HOME: home, PTYHUB_SOCKET: socket })).toBe(socket);
  });

  test("a symlink where the private directory should be is refused (anyone can create names in /tmp)", () => {
    const real = join(root, "real");
    mkdirSync(real);
    const planted = join(root, "planted");
    symlinkSync(real, planted);
    expect(() => refusePlanted(planted)).toThrow(/is a symbolic link/);
    expect(() => refusePlanted(real)).not.toThrow();
    expect(() => refusePlanted(join(root, "not-yet"))).not.toThrow();
  });

  test("a server with Codex's minimal environment and `ptyhub ls` from a full one meet the same daemon", async () => {
    const env = codexEnv(join(root, "tmp-a"));
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: "pipe" });
    const client = new Client({ name: "codex-mcp-client", version: "0" });
    await client.connect(transport);
    try {
      const opened = await client.callTool({ name: "term_open", arguments: { name: "shared", command: "sleep 60" } });
      expect(opened.isError).toBeFalsy();
      const text = (opened.content as Array<{ text: string }>)[0]!.text;
      expect(text).toContain("[opened shared");
      // The text form (what Codex's model reads) carries the attach command too.
      expect(text).toContain("a human can watch: ptyhub attach shared");
    } finally {
      await client.close();
    }
    // The user's own terminal: another TMPDIR, an XDG_RUNTIME_DIR, everything else inherited.
    const userEnv = {
      ...(process.env as Record<string, string>),
      XDG_RUNTIME_DIR: join(root, "run"),
      TMPDIR: join(root, "tmp-b"),
      PTYHUB_SOCKET: socket,
    };
    const ls = await cli(["ls", "--json"], userEnv);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toContain('"shared"');
    expect((await cli(["kill", "shared"], userEnv)).code).toBe(0);
  }, 30_000);
});
