/**
 * The guard on an SSH session (a real sshd on 127.0.0.1): lines are judged the same way, `~` is
 * the remote home whatever its path, and git's state, which cannot be checked from here, counts
 * as possibly uncommitted work. Needs what test/ssh needs (sshd, ssh-keygen, an isolated HOME).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { cleanup, haveSshd, isRoot, keygen, scratchDir, startSshd, type Sshd } from "../ssh/sshd.ts";
import { startMcp, type McpClient } from "../helpers/mcp-client.ts";

const isolated = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
const enabled = haveSshd && isolated && process.platform === "linux" && (isRoot || existsSync("/run/sshd"));

let sshd: Sshd;
let mcp: McpClient;
let scratch: string;
let key: string;

describe.skipIf(!enabled)("guard over ssh", () => {
  beforeAll(async () => {
    scratch = scratchDir("guard-ssh-");
    const ssh = join(homedir(), ".ssh");
    mkdirSync(ssh, { recursive: true, mode: 0o700 });
    // Its own key and a known_hosts line of its own: ~/.ssh is shared with test/ssh in one run.
    key = await keygen(join(scratch, "id_guard"));
    sshd = await startSshd({ authorizedKeys: readFileSync(key + ".pub", "utf8") });
    const [type, b64] = sshd.hostKeyPub.split(/\s+/);
    appendFileSync(join(ssh, "known_hosts"), `[127.0.0.1]:${sshd.port} ${type} ${b64}\n`, { mode: 0o600 });
    mcp = await startMcp({ transport: "in-process" });
  });
  afterAll(async () => {
    await mcp?.call("term_close", { session: "gs" }).catch(() => undefined);
    await mcp?.close();
    await sshd?.stop();
    if (scratch) cleanup(scratch);
  });

  test("destructive lines are blocked remotely too; harmless ones run", async () => {
    const opened = await mcp.call("term_open", {
      name: "gs",
      persistent: false,
      env: { HISTFILE: join(scratch, "hist") },
      ssh: { host: "127.0.0.1", port: sshd.port, identity_file: key, jump: "none" },
    });
    expect(opened.error).toBeNull();
    const home = await mcp.call("term_exec", { session: "gs", command: "rm -rf ~" });
    expect(home.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(home.error!.message).toContain("home directory");
    const git = await mcp.call("term_exec", { session: "gs", command: "git reset --hard" });
    expect(git.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(git.error!.message).toContain("could not be checked");
    const sent = await mcp.call("term_send", { session: "gs", text: "sudo -n reboot" });
    expect(sent.error?.code).toBe("BLOCKED_BY_GUARD");
    const ok = await mcp.call("term_exec", { session: "gs", command: "echo 'rm -rf ~' is just text" });
    expect(ok.data).toMatchObject({ exit_code: 0, output: "rm -rf ~ is just text" });
  });
});
