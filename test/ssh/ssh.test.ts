/**
 * SSH sessions end to end, against real OpenSSH servers (Debian's openssh-server) on 127.0.0.1,
 * driven through the real MCP server with the official SDK client. Its elicitation handler plays
 * the human who types passphrases and passwords.
 *
 * Needs: /usr/sbin/sshd, ssh-keygen, ssh-agent, ssh-add, vim. Password logins need root (a test
 * user with a password is created and removed). HOME is the runner's isolated one, so
 * ~/.ssh/{config,known_hosts,id_*} here are this run's own.
 */
import { awaitReadyLine } from "../helpers/ready-line.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:net";
import {
  cleanup,
  createTestUser,
  currentUser,
  freePort,
  haveSshd,
  isRoot,
  keygen,
  killQuietly,
  run,
  scratchDir,
  startSshd,
  type Sshd,
  type TestUser,
} from "./sshd.ts";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { fingerprint, keysFor } from "../../src/backend/ssh/known-hosts.ts";
import { UNASKED_ANSWER_MS } from "../../src/mcp/unasked.ts";

const CLI = join(import.meta.dir, "..", "..", "src", "cli.ts");
/** A secret must appear nowhere, the server's most talkative log included. */
const SECRET_CHECK_ENV = { PTYHUB_LOG_LEVEL: "debug" };
/** Sessions hosted by the daemon (src/daemon) survive MCP server restarts. */
const haveDaemon = existsSync(join(import.meta.dir, "..", "..", "src", "daemon", "main.ts"));
const isolated = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
// sshd needs its privilege separation dir, which only root can create.
const enabled = haveSshd && isolated && process.platform === "linux" && (isRoot || existsSync("/run/sshd"));
const PASSPHRASE = "correct horse battery staple 7";
/** How much longer than the client's own instant refusal a human takes to decline. */
const HUMAN_READS_MS = 150;

let sshd: Sshd;
let jumpSshd: Sshd;
let user: TestUser | null = null;
let mcp: StdioMcp;
let scratch: string;
let agentPid = 0;
/** How long ssh-agent may take to listen on a busy machine. */
const AGENT_START_MS = 20_000;
let agentSock = "";
const ssh = join(homedir(), ".ssh");
const keys = {
  plain: join(ssh, "id_ed25519"),
  enc: join(ssh, "id_enc"),
  stranger: join(ssh, "id_stranger"),
  agent: "",
};
/** The human's answers, per test. */
let answers: { passphrase?: string; password?: string; action?: "accept" | "decline" | "cancel" } = {};

function hostKeyBlob(d: Sshd): Buffer {
  return Buffer.from(d.hostKeyPub.split(/\s+/)[1]!, "base64");
}

function knownHostsLine(d: Sshd, name = "127.0.0.1"): string {
  const [type, b64] = d.hostKeyPub.split(/\s+/);
  return `[${name}]:${d.port} ${type} ${b64}`;
}

function writeKnownHosts(lines: string[]): void {
  writeFileSync(join(ssh, "known_hosts"), lines.join("\n") + "\n", { mode: 0o600 });
}

function writeConfig(text: string): void {
  writeFileSync(join(ssh, "config"), text, { mode: 0o600 });
}

/** Common ssh params for the main server as the current user; root sessions keep their history out of /root. */
function target(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { host: "127.0.0.1", port: sshd.port, ...extra };
}

/** The second server has no password logins: a failed key login is a plain auth failure there. */
function keyOnly(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { host: "127.0.0.1", port: jumpSshd.port, ...extra };
}

function histEnv(): Record<string, string> {
  return { HISTFILE: join(scratch, `hist-${Math.random().toString(36).slice(2)}`) };
}

let opened = 0;
async function open(m: StdioMcp, sshParams: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const name = (extra.name as string | undefined) ?? `s${++opened}`;
  return m.call("term_open", { name, persistent: false, env: histEnv(), ...extra, ssh: sshParams });
}

async function waitExited(m: StdioMcp, session: string, withinMs: number): Promise<number> {
  const t0 = Date.now();
  const exited = async () => {
    const r = await m.call("term_list", {});
    const s = (r.data.sessions as { session: string; state: string }[]).find((x) => x.session === session);
    return !s || s.state === "exited";
  };
  await waitFor(exited, withinMs, `session ${session} to exit`);
  return Date.now() - t0;
}

/** The per-connection sshd processes serving a session: parents of its remote shell. */
async function serverSideOf(m: StdioMcp, session: string): Promise<number[]> {
  const r = await m.call("term_exec", { session, command: "echo $$" });
  let pid = Number(r.data.output.trim());
  const chain: number[] = [];
  for (let i = 0; i < 3; i++) {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1");
    if (!cmd.startsWith("sshd")) break;
    if (pid === sshd.pid || pid === jumpSshd.pid) break;
    chain.push(pid);
  }
  return chain;
}

describe.skipIf(!enabled)("ssh sessions", () => {
  beforeAll(async () => {
    scratch = scratchDir("ssh-test-");
    mkdirSync(ssh, { recursive: true, mode: 0o700 });
    await keygen(keys.plain);
    await keygen(keys.enc, { passphrase: PASSPHRASE });
    await keygen(keys.stranger);
    keys.agent = await keygen(join(scratch, "agent_key"));
    const authorized = [keys.plain, keys.enc, keys.agent].map((k) => readFileSync(k + ".pub", "utf8")).join("");
    [sshd, jumpSshd] = await Promise.all([
      startSshd({ authorizedKeys: authorized, password: isRoot }),
      startSshd({ authorizedKeys: authorized }),
    ]);
    if (isRoot) user = await createTestUser("/bin/sh");
    writeKnownHosts([knownHostsLine(sshd), knownHostsLine(jumpSshd)]);
    writeConfig("");
    // A test ssh-agent holding a key that exists nowhere else.
    agentSock = join(scratch, "agent.sock");
    const agent = Bun.spawn(["ssh-agent", "-D", "-a", agentSock], {
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
    });
    agentPid = agent.pid;
    // In the foreground, ssh-agent prints its environment once it listens (the socket file alone
    // appears at bind(2), before listen(2): ssh-add then met "Connection refused" under load).
    const ready = await awaitReadyLine(agent.stdout, "SSH_AUTH_SOCK=", AGENT_START_MS);
    if (!ready.ok) throw new Error(`ssh-agent did not start: ${ready.seen}`);
    const add = await run(["ssh-add", keys.agent], { env: { SSH_AUTH_SOCK: agentSock } });
    if (add.code !== 0) throw new Error(`ssh-add failed: ${add.err}`);
    mcp = await startMcp();
  });

  afterAll(async () => {
    await mcp?.close();
    await Promise.all([sshd?.stop(), jumpSshd?.stop()]);
    if (agentPid) killQuietly(agentPid, "SIGTERM");
    await user?.remove();
    if (scratch) cleanup(scratch);
  });

  test("key auth: a remote bash with shell integration, exact exit codes and cwd, on one connection", async () => {
    const r = await open(mcp, target(), { name: "key" });
    expect(r.error).toBeNull();
    expect(r.data).toMatchObject({
      kind: "ssh",
      target: `${currentUser}@127.0.0.1:${sshd.port}`,
      pid: null,
      shell_integration: true,
      state: "prompt",
    });
    const connections = sshd.connections().length;
    const a = await mcp.call("term_exec", { session: "key", command: "echo hello; false" });
    expect(a.data).toMatchObject({ status: "done", exit_code: 1, output: "hello", via: "shell" });
    const b = await mcp.call("term_exec", { session: "key", command: "cd /tmp && (exit 42)" });
    expect(b.data).toMatchObject({ exit_code: 42, cwd: "/tmp", output: "" });
    const c = await mcp.call("term_exec", { session: "key", command: "pwd; printf 'a\\nb\\n'" });
    expect(c.data).toMatchObject({ exit_code: 0, output: "/tmp\na\nb", cwd: "/tmp" });
    // Every command rode the same connection: no new login per command.
    expect(sshd.connections().length).toBe(connections);
    // The remote shell's own exit status ends the session.
    await mcp.call("term_send", { session: "key", text: "exit 3", wait_ms: 2000 });
    await waitExited(mcp, "key", 3000);
    const listed = await mcp.call("term_list", {});
    expect(listed.data.sessions.find((x: { session: string }) => x.session === "key")).toMatchObject({
      state: "exited",
      exit_code: 3,
    });
    await mcp.call("term_close", { session: "key" });
  }, 30_000);

  test("zsh and fish on the remote host get shell integration too", async () => {
    for (const shell of ["zsh", "fish"]) {
      if (!Bun.which(shell)) continue;
      const r = await open(mcp, target(), { name: shell, command: shell, cwd: "/tmp" });
      expect(r.error).toBeNull();
      expect(r.data).toMatchObject({ shell_integration: true, state: "prompt" });
      const e = await mcp.call("term_exec", { session: shell, command: "echo $PWD; false" });
      expect(e.data).toMatchObject({ status: "done", exit_code: 1, output: "/tmp", via: "shell" });
      await mcp.call("term_close", { session: shell });
    }
  }, 30_000);

  test("exec bash on the remote host: input at its prompt, then a SESSION_BUSY that says why, never stuck", async () => {
    await open(mcp, target(), { name: "execd" });
    const t0 = Date.now();
    const r = await mcp.call("term_exec", { session: "execd", command: "exec bash --norc", timeout_ms: 20_000 });
    // Over SSH the new shell's process is out of sight: the prompt text is all there is.
    expect(r.data).toMatchObject({ status: "input", state: "prompt", exit_code: null });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const busy = await mcp.call("term_exec", { session: "execd", command: "echo x" });
    expect(busy.error).toMatchObject({ code: "SESSION_BUSY" });
    expect(busy.error!.message).toContain("prompt of its own");
    const typed = await mcp.call("term_send", { session: "execd", text: "echo by-hand", until: "by-hand" });
    expect(typed.data.matched).toBe("by-hand");
    await mcp.call("term_close", { session: "execd" });
  }, 30_000);

  test("a command typed while the first prompt is still being drawn is done only at its own end", async () => {
    // The remote prompt takes 0.5 s to draw (as a login on a loaded host): term_open returns at
    // its first mark, and the first term_exec is typed ahead of the prompt. That prompt, drawn
    // below the echo, once passed for a dropped line: `done via prompt`, no output, no exit code.
    const env = { ...histEnv(), PROMPT_COMMAND: "sleep 0.5" };
    await open(mcp, target(), { name: "slowprompt", env });
    const a = await mcp.call("term_exec", { session: "slowprompt", command: "echo hello; false" });
    expect(a.data).toMatchObject({ status: "done", exit_code: 1, output: "hello", via: "shell" });
    await mcp.call("term_close", { session: "slowprompt" });
    await open(mcp, target(), { name: "slowexec", env });
    const b = await mcp.call("term_exec", { session: "slowexec", command: "exec env -u PROMPT_COMMAND bash --norc" });
    expect(b.data).toMatchObject({ status: "input", exit_code: null });
    await mcp.call("term_close", { session: "slowexec" });
  }, 30_000);

  test("POSIX sh login shell: per-command markers give exit codes and cwd; cwd/env/command options apply remotely", async () => {
    if (!user) return;
    const r = await open(mcp, target({ user: user.name }), {
      name: "dash",
      cwd: "/tmp",
      env: { GREETING: "it's here" },
    });
    expect(r.error).toBeNull();
    expect(r.data).toMatchObject({ kind: "ssh", target: `${user.name}@127.0.0.1:${sshd.port}`, state: "prompt" });
    const a = await mcp.call("term_exec", { session: "dash", command: 'echo "$GREETING"; pwd; whoami; (exit 3)' });
    expect(a.data).toMatchObject({
      status: "done",
      exit_code: 3,
      output: `it's here\n/tmp\n${user.name}`,
      via: "marker",
    });
    const b = await mcp.call("term_exec", { session: "dash", command: "cd / && ls -d /etc" });
    expect(b.data).toMatchObject({ exit_code: 0, output: "/etc", cwd: "/" });
    // The setup dir is gone once the shell has read its rc (counted for this run's own user only:
    // other runs on the machine share /tmp).
    const dirs = await mcp.call("term_exec", {
      session: "dash",
      command: 'find "${TMPDIR:-/tmp}" -maxdepth 1 -name "ptyhub.*" -user "$(id -un)" | wc -l',
    });
    expect(dirs.data.output.trim()).toBe("0");
    await mcp.call("term_close", { session: "dash" });

    const missing = await open(mcp, target(), { cwd: "/no/such/dir" });
    expect(missing.error?.code).toBe("CWD_NOT_FOUND");
    const cmd = await open(mcp, target(), { command: "echo remote-$((6*7))", name: "cmd" });
    expect(cmd.data.output).toContain("remote-42");
    expect(cmd.data.shell_integration).toBe(false);
  }, 30_000);

  test("setup leaves no trace in the remote history", async () => {
    const hist = join(scratch, "hist-check");
    const r = await open(mcp, target(), { name: "hist", env: { HISTFILE: hist } });
    expect(r.error).toBeNull();
    await mcp.call("term_exec", { session: "hist", command: "echo from-the-agent" });
    await mcp.call("term_exec", { session: "hist", command: "history -a" });
    const text = readFileSync(hist, "utf8");
    expect(text).toContain("echo from-the-agent");
    expect(text).not.toMatch(/__ptyhub|PTYHUB_|rcfile|\/boot/);
    await mcp.call("term_close", { session: "hist" });
  }, 30_000);

  test("~/.ssh/config: first match wins across wildcard Host blocks; IdentitiesOnly keys", async () => {
    writeConfig(
      `Host web-1\n  Port ${sshd.port}\n  User ${currentUser}\n\nHost web-*\n  HostName 127.0.0.1\n  Port 1\n  User nobody\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes\n  ServerAliveInterval 5\n`,
    );
    try {
      const r = await open(mcp, { host: "web-1" }, { name: "alias" });
      expect(r.error).toBeNull();
      expect(r.data.target).toBe(`${currentUser}@127.0.0.1:${sshd.port}`);
      const e = await mcp.call("term_exec", { session: "alias", command: "echo ok" });
      expect(e.data.output).toBe("ok");
      await mcp.call("term_close", { session: "alias" });
    } finally {
      writeConfig("");
    }
  }, 30_000);

  test("ssh-agent auth via SSH_AUTH_SOCK, and agent forwarding only when asked", async () => {
    const withAgent = await startMcp({ env: { SSH_AUTH_SOCK: agentSock } });
    try {
      // Only the agent holds an authorized key: the named identity file is a stranger.
      const r = await open(withAgent, target({ identity_file: keys.stranger }), { name: "agent" });
      expect(r.error).toBeNull();
      const plain = await withAgent.call("term_exec", {
        session: "agent",
        command: 'echo "sock=${SSH_AUTH_SOCK:-none}"',
      });
      expect(plain.data.output).toBe("sock=none");
      const fwd = await open(withAgent, target({ identity_file: keys.stranger, forward_agent: true }), { name: "fwd" });
      expect(fwd.error).toBeNull();
      const listed = await withAgent.call("term_exec", { session: "fwd", command: "ssh-add -l" });
      expect(listed.data.exit_code).toBe(0);
      expect(listed.data.output).toContain(
        fingerprint(Buffer.from(readFileSync(keys.agent + ".pub", "utf8").split(" ")[1] ?? "", "base64")),
      );
    } finally {
      await withAgent.close();
    }
    // The same call without the agent cannot log in.
    const without = await open(mcp, keyOnly({ identity_file: keys.stranger }));
    expect(without.error?.code).toBe("SSH_AUTH_FAILED");
    expect(without.error?.message).toContain("id_stranger");
  }, 30_000);

  test("encrypted key: the passphrase comes from the human through elicitation and appears nowhere", async () => {
    const human = await startMcp({
      env: SECRET_CHECK_ENV,
      elicit: async () => {
        // A human's decline takes a moment; an instant one is the client's own (nobody asked: ssh-questions.test.ts).
        if (answers.action === "decline") await Bun.sleep(UNASKED_ANSWER_MS + HUMAN_READS_MS);
        return { action: answers.action ?? "accept", content: { passphrase: answers.passphrase ?? "" } };
      },
    });
    try {
      answers = { passphrase: PASSPHRASE };
      const r = await open(human, keyOnly({ identity_file: keys.enc }), { name: "enc" });
      expect(r.error).toBeNull();
      expect(human.elicitations.length).toBe(1);
      expect(human.elicitations[0]!.message).toContain("id_enc");
      const e = await human.call("term_exec", { session: "enc", command: "echo in" });
      expect(e.data.output).toBe("in");
      // A wrong passphrase is asked again; declining ends with a clear auth failure.
      answers = { passphrase: "wrong" };
      const wrong = await open(human, keyOnly({ identity_file: keys.enc }));
      expect(wrong.error?.code).toBe("SSH_AUTH_FAILED");
      expect(human.elicitations.length).toBe(4);
      answers = { action: "decline" };
      const declined = await open(human, keyOnly({ identity_file: keys.enc }));
      expect(declined.error?.code).toBe("SSH_AUTH_FAILED");
      expect(declined.error?.message).toContain("declined");
      expect(human.transcript()).not.toContain(PASSPHRASE);
    } finally {
      await human.close();
    }
    // A client without elicitation gets told how to proceed.
    const r = await open(mcp, keyOnly({ identity_file: keys.enc }));
    expect(r.error?.code).toBe("ELICITATION_UNSUPPORTED");
    expect(r.error?.message).toContain("passphrase");
    expect(r.error?.hint).toMatch(/ssh-add/);
    expect(r.error?.hint).toMatch(/ptyhub attach/);
  }, 40_000);

  test("encrypted key, URL-mode client: the passphrase is typed on ptyhub's page, never sent to the client", async () => {
    const pages: string[] = [];
    const typed: Promise<number>[] = [];
    // The human opens the page the client was given and types the passphrase there.
    const typeOnPage = async (url: string): Promise<number> => {
      const form = await fetch(url);
      expect(await form.text()).toContain('name="passphrase"');
      const r = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin },
        body: new URLSearchParams({ passphrase: PASSPHRASE }).toString(),
      });
      await r.text();
      return r.status;
    };
    const human = await startMcp({
      capabilities: { elicitation: { form: {}, url: {} } },
      elicit: (req) => {
        if (req.mode === "url") {
          pages.push(req.url);
          typed.push(typeOnPage(req.url));
        }
        return { action: "accept" };
      },
    });
    try {
      const r = await open(human, keyOnly({ identity_file: keys.enc }), { name: "enc-url" });
      expect(r.error).toBeNull();
      expect(await Promise.all(typed)).toEqual([200]);
      expect(human.elicitations.map((e) => e.mode)).toEqual(["url"]);
      expect(human.elicitations[0]!.message).toContain("id_enc");
      expect(pages[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/secret\//);
      const e = await human.call("term_exec", { session: "enc-url", command: "echo in" });
      expect(e.data.output).toBe("in");
      expect(human.transcript()).not.toContain(PASSPHRASE);
      expect(JSON.stringify(human.elicitations)).not.toContain(PASSPHRASE);
    } finally {
      await human.close();
    }
  }, 40_000);

  test("password login (keyboard-interactive) through elicitation", async () => {
    if (!user) return;
    const human = await startMcp({
      env: SECRET_CHECK_ENV,
      elicit: () => ({ action: answers.action ?? "accept", content: { password: answers.password ?? "" } }),
    });
    try {
      answers = { password: user.password };
      const r = await open(human, target({ user: user.name, identity_file: keys.stranger }), { name: "pw" });
      expect(r.error).toBeNull();
      expect(human.elicitations[0]!.message).toContain(user.name);
      const who = await human.call("term_exec", { session: "pw", command: "whoami" });
      expect(who.data).toMatchObject({ output: user.name, exit_code: 0 });
      expect(human.transcript()).not.toContain(user.password);
    } finally {
      await human.close();
    }
    // The "password" method (no keyboard-interactive on offer).
    const pwOnly = await startSshd({ password: true, extra: ["KbdInteractiveAuthentication no"] });
    const human2 = await startMcp({ elicit: () => ({ action: "accept", content: { password: user!.password } }) });
    try {
      const hk = pwOnly.hostKeyPub.split(/\s+/);
      writeFileSync(join(ssh, "known_hosts"), `[127.0.0.1]:${pwOnly.port} ${hk[0]} ${hk[1]}\n`, { flag: "a" });
      const r = await open(
        human2,
        { host: "127.0.0.1", port: pwOnly.port, user: user.name, identity_file: keys.stranger },
        { name: "pw2" },
      );
      expect(r.error).toBeNull();
      expect(human2.elicitations[0]!.message).toContain("Password");
      await human2.call("term_close", { session: "pw2" });
    } finally {
      await human2.close();
      await pwOnly.stop();
    }
    const r = await open(mcp, target({ user: user.name, identity_file: keys.stranger }));
    expect(r.error?.code).toBe("ELICITATION_UNSUPPORTED");
    expect(r.error?.message).toContain("password");
    expect(r.error?.hint).toContain("ptyhub attach");
  }, 40_000);

  test("host keys: unknown is refused when strict, recorded with accept-new; a changed key is refused either way", async () => {
    // "localhost" is not in known_hosts (only [127.0.0.1]:port is).
    const strict = await open(mcp, { host: "localhost", port: sshd.port });
    expect(strict.error?.code).toBe("SSH_HOST_KEY_UNKNOWN");
    expect(strict.error?.message).toContain("ssh-ed25519");
    expect(strict.error?.message).toContain(fingerprint(hostKeyBlob(sshd)));
    expect(strict.error?.hint).toContain('"accept-new"');
    expect(keysFor([join(ssh, "known_hosts")], `[localhost]:${sshd.port}`)).toHaveLength(0);

    const accepted = await open(
      mcp,
      { host: "localhost", port: sshd.port, host_key: "accept-new" },
      { name: "newhost" },
    );
    expect(accepted.error).toBeNull();
    // ssh-keygen -F finds the recorded key (hashed or not, as HashKnownHosts says).
    const found = await run(["ssh-keygen", "-F", `[localhost]:${sshd.port}`, "-f", join(ssh, "known_hosts")]);
    expect(found.code).toBe(0);
    await mcp.call("term_close", { session: "newhost" });
    const again = await open(mcp, { host: "localhost", port: sshd.port }, { name: "known-now" });
    expect(again.error).toBeNull();
    await mcp.call("term_close", { session: "known-now" });

    // Hashed entries (ssh-keygen -H) match too.
    const before = readFileSync(join(ssh, "known_hosts"), "utf8");
    await run(["ssh-keygen", "-H", "-f", join(ssh, "known_hosts")]);
    expect(readFileSync(join(ssh, "known_hosts"), "utf8")).toContain("|1|");
    const hashed = await open(mcp, target(), { name: "hashed" });
    expect(hashed.error).toBeNull();
    await mcp.call("term_close", { session: "hashed" });

    // Another key recorded under this name: refused, even with accept-new, and nothing is written.
    const otherKey = await keygen(join(scratch, "other_host_key"));
    const [type, b64] = readFileSync(otherKey + ".pub", "utf8").split(/\s+/);
    writeKnownHosts([`[127.0.0.1]:${sshd.port} ${type} ${b64}`]);
    const snapshot = readFileSync(join(ssh, "known_hosts"), "utf8");
    for (const mode of ["strict", "accept-new"]) {
      const r = await open(mcp, target({ host_key: mode }));
      expect(r.error?.code).toBe("SSH_HOST_KEY_MISMATCH");
      expect(r.error?.message).toContain(fingerprint(hostKeyBlob(sshd)));
      expect(r.error?.hint).toContain("ssh-keygen -R");
    }
    expect(readFileSync(join(ssh, "known_hosts"), "utf8")).toBe(snapshot);
    writeFileSync(join(ssh, "known_hosts"), before);
    writeKnownHosts([knownHostsLine(sshd), knownHostsLine(jumpSshd)]);
  }, 40_000);

  test("ProxyJump through a second sshd, from the call and from ~/.ssh/config", async () => {
    const before = jumpSshd.connections().length;
    const r = await open(mcp, target({ jump: `${currentUser}@127.0.0.1:${jumpSshd.port}` }), { name: "jumped" });
    expect(r.error).toBeNull();
    expect(jumpSshd.connections().length).toBeGreaterThan(before);
    const e = await mcp.call("term_exec", { session: "jumped", command: "echo via-jump" });
    expect(e.data.output).toBe("via-jump");
    await mcp.call("term_close", { session: "jumped" });

    writeConfig(
      `Host bastion\n  HostName 127.0.0.1\n  Port ${jumpSshd.port}\n\nHost inner\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  ProxyJump bastion\n`,
    );
    try {
      const viaConfig = await open(mcp, { host: "inner" }, { name: "inner" });
      expect(viaConfig.error).toBeNull();
      expect((await mcp.call("term_exec", { session: "inner", command: "echo inner" })).data.output).toBe("inner");
      await mcp.call("term_close", { session: "inner" });
      // A jump host that refuses: the error names it.
      const port = await freePort();
      const bad = await open(mcp, { host: "inner", jump: `127.0.0.1:${port}` });
      expect(bad.error?.code).toBe("SSH_CONNECT_FAILED");
      expect(bad.error?.message).toContain("refused");
      // The jump host cannot reach the target.
      const unreachable = await open(mcp, { host: "127.0.0.1", port, jump: "bastion" });
      expect(unreachable.error?.code).toBe("SSH_CONNECT_FAILED");
      expect(unreachable.error?.message).toContain("jump host bastion");
    } finally {
      writeConfig("");
    }
  }, 40_000);

  test("vim over SSH uses the alternate screen; resize reaches the remote stty; ctrl+c interrupts", async () => {
    const r = await open(mcp, target(), { name: "tty", cols: 100, rows: 30 });
    expect(r.error).toBeNull();
    expect((await mcp.call("term_exec", { session: "tty", command: "stty size" })).data.output).toBe("30 100");
    await mcp.call("term_resize", { session: "tty", cols: 90, rows: 25 });
    expect((await mcp.call("term_exec", { session: "tty", command: "stty size" })).data.output).toBe("25 90");

    const vim = await mcp.call("term_send", {
      session: "tty",
      text: `vim -u NONE -N ${join(scratch, "file.txt")}`,
      wait_ms: 3000,
      until: "file.txt",
    });
    expect(vim.data.alt_screen).toBe(true);
    await mcp.call("term_send", {
      session: "tty",
      text: "ihello from vim",
      enter: false,
      keys: ["escape"],
      wait_ms: 300,
    });
    const quit = await mcp.call("term_send", { session: "tty", text: ":wq", wait_ms: 3000 });
    expect(quit.data.alt_screen).toBe(false);
    expect(readFileSync(join(scratch, "file.txt"), "utf8")).toBe("hello from vim\n");

    const sleeping = await mcp.call("term_exec", { session: "tty", command: "sleep 30", timeout_ms: 300 });
    expect(sleeping.data.status).toBe("running");
    await mcp.call("term_send", { session: "tty", keys: ["ctrl+c"], wait_ms: 1000 });
    const after = await mcp.call("term_exec", { session: "tty", command: "echo back" });
    expect(after.data).toMatchObject({ status: "done", output: "back", exit_code: 0 });
    await mcp.call("term_close", { session: "tty" });
  }, 30_000);

  test("a killed server-side connection ends the session within seconds, with the reason", async () => {
    const r = await open(mcp, target(), { name: "victim" });
    expect(r.error).toBeNull();
    const server = await serverSideOf(mcp, "victim");
    expect(server.length).toBeGreaterThan(0);
    for (const pid of server) killQuietly(pid, "SIGKILL");
    expect(await waitExited(mcp, "victim", 5000)).toBeLessThan(5000);
    const e = await mcp.call("term_exec", { session: "victim", command: "echo hi" });
    expect(e.error?.code).toBe("SESSION_EXITED");
    expect(e.error?.message).toContain("connection lost");
  }, 30_000);

  test("a host that stops answering is noticed by keepalives, never a hang", async () => {
    const r = await open(mcp, target({ keepalive_s: 1 }), { name: "frozen" });
    expect(r.error).toBeNull();
    const server = await serverSideOf(mcp, "frozen");
    for (const pid of server) killQuietly(pid, "SIGSTOP");
    try {
      expect(await waitExited(mcp, "frozen", 8000)).toBeLessThan(8000);
      const e = await mcp.call("term_exec", { session: "frozen", command: "echo hi" });
      expect(e.error?.message).toContain("keepalive");
    } finally {
      for (const pid of server) killQuietly(pid, "SIGKILL");
    }
  }, 30_000);

  test("connection errors are distinct and bounded: refused, DNS, no handshake, auth", async () => {
    const port = await freePort();
    const refused = await open(mcp, { host: "127.0.0.1", port });
    expect(refused.error?.code).toBe("SSH_CONNECT_FAILED");
    expect(refused.error?.message).toContain("refused");

    const dns = await open(mcp, { host: "no-such-host.invalid" });
    expect(dns.error?.code).toBe("SSH_CONNECT_FAILED");
    expect(dns.error?.message).toContain("resolve");

    // Accepts TCP, never speaks SSH.
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
    try {
      const t0 = Date.now();
      const mute = await open(mcp, {
        host: "127.0.0.1",
        port: (silent.address() as { port: number }).port,
        connect_timeout_s: 1,
      });
      expect(mute.error?.code).toBe("SSH_CONNECT_FAILED");
      expect(mute.error?.message).toContain("handshake");
      expect(Date.now() - t0).toBeLessThan(4000);
    } finally {
      silent.close();
    }

    const auth = await open(mcp, keyOnly({ identity_file: keys.stranger }));
    expect(auth.error?.code).toBe("SSH_AUTH_FAILED");
    expect(auth.error?.message).toContain("publickey");
    const unknownUser = await open(mcp, keyOnly({ user: "no-such-user-ptyhub" }));
    expect(unknownUser.error?.code).toBe("SSH_AUTH_FAILED");
    // With password logins on offer and no way to ask the human, the error says how to proceed.
    const needsPassword = await open(mcp, target({ identity_file: keys.stranger }));
    expect(needsPassword.error?.code).toBe(isRoot ? "ELICITATION_UNSUPPORTED" : "SSH_AUTH_FAILED");

    const invalid = await mcp.call("term_open", { ssh: { host: "x", port: 70000 } });
    expect(invalid.error?.code).toBe("INVALID_ARGUMENT");
  }, 40_000);

  test.skipIf(!haveDaemon)(
    "a persistent SSH session lives in the daemon and survives an MCP server restart",
    async () => {
      // A private daemon: its own runtime dir (socket) and state dir.
      const base = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT!, "dm-"));
      const socket = join(base, "r", "ptyhub", "daemon.sock");
      const env = {
        XDG_RUNTIME_DIR: join(base, "r"),
        XDG_STATE_HOME: join(base, "s"),
        PTYHUB_SOCKET: socket,
        PTYHUB_PERSISTENT: undefined,
      };
      mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
      const first = await startMcp({ env });
      try {
        const r = await first.call("term_open", { name: "remote", persistent: true, env: histEnv(), ssh: target() });
        expect(r.error).toBeNull();
        expect(r.data).toMatchObject({ kind: "ssh", persistent: true, attach: "ptyhub attach remote" });
        await first.call("term_exec", { session: "remote", command: "cd /tmp && KEEP=42" });
      } finally {
        await first.close();
      }
      const second = await startMcp({ env });
      try {
        const e = await second.call("term_exec", { session: "remote", command: 'echo "$KEEP $PWD"' });
        expect(e.data).toMatchObject({ status: "done", exit_code: 0, output: "42 /tmp" });
        await second.call("term_close", { session: "remote" });
      } finally {
        await second.close();
        const stopEnv = { XDG_STATE_HOME: env.XDG_STATE_HOME, PTYHUB_SOCKET: socket };
        await run(["bun", CLI, "daemon", "--stop"], { env: stopEnv });
      }
    },
    30_000,
  );
});
