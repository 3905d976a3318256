/**
 * The sandbox launcher in the release binary: there it is the binary itself (process.execPath,
 * no bun, no cli.ts) that runs `__sandbox` and execs the shell. Driven over stdio by the MCP SDK
 * client, with the session hosted in the binary's own daemon.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUILD_TIMEOUT_MS, hostBuild, isolatedEnv, makeTempDir, runProcess } from "../ship/helpers.ts";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";

const TEST_TIMEOUT_MS = 60_000;
let dir: string;
let binary: string;
let env: Record<string, string>;

beforeAll(async () => {
  const build = await hostBuild();
  dir = makeTempDir("sandbox-bin");
  binary = join(dir, "bin", "ptyhub");
  mkdirSync(dirname(binary));
  copyFileSync(build.binaryPath, binary);
  env = isolatedEnv(join(dir, "home"), { SHELL: Bun.which("bash") ?? "/bin/sh" });
  mkdirSync(join(dir, "work"));
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  if (binary) await runProcess([binary, "daemon", "--stop"], { env });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("sandbox in the compiled binary", () => {
  test.if(landlockAbi() >= 1)(
    "term_open sandbox workspace: inside writable, outside refused",
    async () => {
      const transport = new StdioClientTransport({ command: binary, args: [], cwd: dir, env, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: "ptyhub-sandbox-compiled", version: "1.0.0" });
      try {
        await client.connect(transport);
        const opened = await client.callTool({
          name: "term_open",
          arguments: { name: "sbc", cwd: join(dir, "work"), sandbox: "workspace" },
        });
        expect(opened.isError).toBeFalsy();
        const exec = async (command: string) =>
          (await client.callTool({ name: "term_exec", arguments: { session: "sbc", command } })).structuredContent as {
            exit_code: number;
          };
        expect((await exec("touch inside")).exit_code).toBe(0);
        expect((await exec(`touch ${dir}/outside`)).exit_code).not.toBe(0);
        expect(existsSync(join(dir, "work", "inside"))).toBe(true);
        expect(existsSync(join(dir, "outside"))).toBe(false);
        await client.callTool({ name: "term_close", arguments: { session: "sbc" } });
      } catch (err) {
        throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- server stderr ---\n${stderr}`);
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
