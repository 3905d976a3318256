/**
 * A workspace-sandboxed session writes a fsmonitor hook into its own repository's config, then
 * types `git reset --hard`: the guard's look at the tree (`git status`, run by ptyhub outside the
 * sandbox) must not run the hook. Before src/guard/git.ts kept status from running repository
 * programs, the hook wrote outside the sandbox, though the guard refused the line. Through the real
 * MCP client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { landlockAbi } from "../../src/backend/local/sandbox/landlock.ts";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

const SESSION = "ws-git";
const EXEC_TIMEOUT_MS = 20_000;

let mcp: McpClient;
let root: string;

beforeAll(async () => {
  mcp = await startMcp({ transport: "in-process", config: { shell: "/bin/bash" } });
  root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-git-")));
  mkdirSync(join(root, "work"));
});
afterAll(async () => {
  await mcp.call("term_close", { session: SESSION });
  await mcp.close();
  rmSync(root, { recursive: true, force: true });
});

async function exec(command: string) {
  return mcp.call("term_exec", { session: SESSION, command, timeout_ms: EXEC_TIMEOUT_MS });
}

describe.if(landlockAbi() >= 1)("the guard's git status in a sandboxed session", () => {
  test("a fsmonitor hook the session configured does not run outside the sandbox", async () => {
    const outside = join(root, "escaped");
    const opened = await mcp.call("term_open", { name: SESSION, cwd: join(root, "work"), sandbox: "workspace" });
    expect(opened.error).toBeNull();
    const direct = await exec(`touch ${outside}`);
    expect(direct.data.exit_code).not.toBe(0);
    const setup = await exec(
      "git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x && echo work > f" +
        ` && git config core.fsmonitor 'touch ${outside}; false' && echo ready`,
    );
    expect(setup.data).toMatchObject({ exit_code: 0, output: "ready" });
    const reset = await exec("git reset --hard");
    expect(reset.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(existsSync(outside)).toBe(false);
  });
});
