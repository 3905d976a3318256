/**
 * SSH passwords asked of the human, whichever way the client asks (issue 36 items 5 and 8): in the
 * 2026-07-28 era the term_open answers `input_required` and the retry carries the password (the
 * login is not dialled twice); a client that refuses within milliseconds, as claude -p and codex
 * exec do, gets "nobody was asked", not "the human declined". A real OpenSSH server on 127.0.0.1
 * with a local user whose password is made at run time (root only).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createTestUser, haveSshd, isRoot, startSshd, type Sshd, type TestUser } from "./sshd.ts";
import { NewEraClient } from "../helpers/mcp-2026.ts";
import { startMcp } from "../helpers/mcp-client.ts";

const isolated = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
const enabled = haveSshd && isolated && isRoot && process.platform === "linux";
const ENV = { PTYHUB_PERSISTENT: "0", PTYHUB_LOG_LEVEL: "debug" };

let sshd: Sshd;
let user: TestUser;
const clients: NewEraClient[] = [];

function target(): Record<string, unknown> {
  return { host: "127.0.0.1", port: sshd.port, user: user.name };
}

describe.skipIf(!enabled)("SSH password questions", () => {
  beforeAll(async () => {
    sshd = await startSshd({ password: true });
    user = await createTestUser("/bin/sh");
    const dir = join(homedir(), ".ssh");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const [type, b64] = sshd.hostKeyPub.split(/\s+/);
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${sshd.port} ${type} ${b64}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await sshd?.stop();
    await user?.remove();
  });

  test("2026-07-28: term_open answers input_required; the retry's password logs in", async () => {
    const era = new NewEraClient({ env: ENV });
    clients.push(era);
    const args = { name: "pw", ssh: target() };
    const asked = await era.result("tools/call", { name: "term_open", arguments: args });
    expect(asked.resultType).toBe("input_required");
    const params = (Object.values(asked.inputRequests)[0] as Record<string, any>).params;
    expect(params.mode).toBe("form");
    expect(params.message).toContain(`SSH login to ${user.name}@127.0.0.1`);
    const fields = Object.keys(params.requestedSchema.properties);
    const opened = (
      await era.answer("term_open", args, asked, {
        action: "accept",
        content: Object.fromEntries(fields.map((f) => [f, user.password])),
      })
    ).result;
    expect(opened.resultType).toBe("complete");
    expect(opened.isError).toBeFalsy();
    const who = await era.result("tools/call", { name: "term_exec", arguments: { session: "pw", command: "whoami" } });
    expect(who.structuredContent).toMatchObject({ output: user.name, exit_code: 0 });
    expect(era.proc.exitCode).toBeNull();
    expect(JSON.stringify([asked, opened, who])).not.toContain(user.password);
  });

  test("2026-07-28: a cancel within milliseconds says nobody was asked", async () => {
    const era = new NewEraClient({ env: ENV });
    clients.push(era);
    const args = { name: "pw-unasked", ssh: target() };
    const asked = await era.result("tools/call", { name: "term_open", arguments: args });
    const r = (await era.answer("term_open", args, asked, { action: "cancel" })).result;
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toBe("ELICITATION_UNSUPPORTED");
    expect(r.structuredContent.error.message).toContain("nobody was asked");
    expect(r.structuredContent.error.message).not.toContain("declined");
    expect(r.structuredContent.error.hint).toContain("ptyhub attach");
  });

  test("2025-11-25: an elicitation declined at once (codex exec) says nobody was asked", async () => {
    const old = await startMcp({ env: ENV, elicit: () => ({ action: "decline" }) });
    try {
      const r = await old.call("term_open", { name: "pw-old", ssh: target() });
      expect(old.elicitations.length).toBeGreaterThan(0);
      expect(r.error?.code).toBe("ELICITATION_UNSUPPORTED");
      expect(r.error?.message).toContain("nobody was asked");
      expect(r.error?.message).toContain("answered on its own");
    } finally {
      await old.close();
    }
  });
});
