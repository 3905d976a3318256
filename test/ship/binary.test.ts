/**
 * The release binary as users get it: built by build.ts, copied to a directory with no
 * node_modules anywhere above it, and driven over stdio by the official MCP SDK client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  BUILD_TIMEOUT_MS,
  VERSION,
  hostBuild,
  isolatedEnv,
  makeTempDir,
  runProcess,
  sha256File,
  type HostBuild,
} from "./helpers.ts";

/** The MCP round trip of a cold binary: start, open a shell, run one command, close. */
const SMOKE_TIMEOUT_MS = 60_000;

let build: HostBuild;
let sandbox: string;
let binary: string;
let env: Record<string, string>;

beforeAll(async () => {
  build = await hostBuild();
  sandbox = makeTempDir("bin");
  binary = join(sandbox, "bin", "ptyhub");
  mkdirSync(dirname(binary));
  copyFileSync(build.binaryPath, binary);
  env = isolatedEnv(join(sandbox, "home"), { SHELL: Bun.which("bash") ?? "/bin/sh" });
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

function nodeModulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) return join(d, "node_modules");
    if (dirname(d) === d) return undefined;
  }
}

describe("release archive", () => {
  test("holds exactly the binary, and SHA256SUMS lists its hash", async () => {
    const listing = await runProcess(["tar", "-tzf", build.archivePath]);
    expect(listing.code).toBe(0);
    expect(listing.stdout.trim().split("\n")).toEqual(["ptyhub"]);
    const sums = readFileSync(build.checksumsPath, "utf8");
    const name = build.archivePath.slice(build.outDir.length + 1);
    expect(name).toBe(
      `ptyhub-${VERSION}-${build.target.os}-${build.target.arch}${build.target.musl ? "-musl" : ""}.tar.gz`,
    );
    expect(sums).toBe(`${await sha256File(build.archivePath)}  ${name}\n`);
  });
});

describe("compiled binary, away from node_modules", () => {
  test("the sandbox really has no node_modules above it", () => {
    expect(nodeModulesAbove(sandbox)).toBeUndefined();
  });

  test("--version prints the stamped version and extracts nothing to TMPDIR", async () => {
    const result = await runProcess([binary, "--version"], { cwd: sandbox, env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`ptyhub ${VERSION}\n`);
    expect(result.code).toBe(0);
    // A bundled native addon would be unpacked into the temp dir at start.
    expect(readdirSync(env.TMPDIR!)).toEqual([]);
  });

  test("ignores a .env in the directory an MCP client starts it in", async () => {
    // Running from source, bun would load this .env and the dry run would name from-dotenv/.
    await Bun.write(join(sandbox, ".env"), `XDG_CONFIG_HOME=${join(sandbox, "from-dotenv")}\n`);
    try {
      const result = await runProcess([binary, "install", "vscode", "--dry-run"], { cwd: sandbox, env });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        `would register ptyhub in ${join(env.XDG_CONFIG_HOME!, "Code", "User", "mcp.json")}`,
      );
      expect(result.stdout).not.toContain("from-dotenv");
    } finally {
      rmSync(join(sandbox, ".env"));
    }
  });

  test("install registers the binary's own absolute path", async () => {
    const home = env.HOME!;
    const result = await runProcess([binary, "install", "cursor"], { cwd: sandbox, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const config = JSON.parse(readFileSync(join(home, ".cursor", "mcp.json"), "utf8"));
    expect(config.mcpServers.ptyhub).toEqual({ command: binary, args: [] });
  });

  test(
    "MCP over stdio: initialize, term_open, term_exec 'echo hi', term_close",
    async () => {
      const transport = new StdioClientTransport({ command: binary, args: [], cwd: sandbox, env, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: "ptyhub-ship-smoke", version: "1.0.0" });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()).toMatchObject({ name: "ptyhub", version: VERSION });
        const tools = (await client.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(
          expect.arrayContaining(["term_open", "term_exec", "term_send", "term_read", "term_list", "term_close"]),
        );

        const opened = await client.callTool({ name: "term_open", arguments: { persistent: false } });
        expect(opened.isError).toBeFalsy();
        const session = (opened.structuredContent as { session: string }).session;
        expect(session).toMatch(/^[A-Za-z0-9._-]{1,64}$/);

        const ran = await client.callTool({ name: "term_exec", arguments: { session, command: "echo hi" } });
        expect(ran.isError).toBeFalsy();
        expect(ran.structuredContent).toMatchObject({ session, status: "done", exit_code: 0, output: "hi" });

        const closed = await client.callTool({ name: "term_close", arguments: { session } });
        expect(closed.isError).toBeFalsy();
        expect(closed.structuredContent).toMatchObject({ session, closed: true });
      } catch (err) {
        throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- server stderr ---\n${stderr}`);
      } finally {
        await client.close();
      }
    },
    SMOKE_TIMEOUT_MS,
  );
});
