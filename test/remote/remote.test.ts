/**
 * Remote persistence end to end: the real MCP server (from source) opens `ssh.remote_persist`
 * sessions on a real loopback sshd, through a TCP proxy the test can cut. The "remote" ptyhub is
 * a binary compiled from these sources once per run and put where a release would be cached
 * locally; ptyhub uploads it over SFTP and runs `ptyhub bridge` there. The remote side is this
 * machine and user, so sshd's SetEnv gives it its own runtime, cache and state directories (its
 * daemon never meets the local one) and this run's id (so the leftover check sees its processes).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { cleanup, haveSshd, isRoot, keygen, run, scratchDir, startSshd, type Sshd } from "../ssh/sshd.ts";
import { startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { startProxy, type Proxy } from "./proxy.ts";
import { localPlatform, releaseCachePath } from "../../src/backend/ssh/persist/platform.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "src", "cli.ts");
const isolated = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
const enabled = haveSshd && isolated && process.platform === "linux" && (isRoot || existsSync("/run/sshd"));
/** Generous bounds: the machine is shared, and the first open uploads a ~100 MB binary. */
const OPEN_MS = 120_000;
const WAIT_MS = 30_000;
const KEY = join(homedir(), ".ssh", "id_remote_persist_test");

let scratch: string;
let sshd: Sshd;
let wrongArchSshd: Sshd;
let proxy: Proxy;
let mcp: StdioMcp;
let remoteEnv: Record<string, string>;

/** The local daemon's remote-related log lines, to explain a timeout. */
function localLog(): string {
  try {
    const lines = readFileSync(join(process.env.XDG_STATE_HOME!, "ptyhub", "daemon.log"), "utf8").split("\n");
    return lines
      .filter((l) => /remote|ssh|bridge/.test(l))
      .slice(-30)
      .join("\n");
  } catch {
    return "(no local daemon log)";
  }
}

/** A timeout's message: what was awaited, and the local daemon's remote log that explains it. */
function withLog(what: string): () => string {
  return () => `${what}\n${localLog()}`;
}

function sshTo(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { host: "127.0.0.1", port, host_key: "accept-new", identity_file: KEY, jump: "none", ...extra };
}

function persistTo(port: number): Record<string, unknown> {
  return sshTo(port, { remote_persist: true });
}

async function sessionState(m: StdioMcp, session: string): Promise<string | undefined> {
  const r = await m.call("term_list", {});
  return (r.data.sessions as { session: string; state: string }[]).find((s) => s.session === session)?.state;
}

async function waitState(m: StdioMcp, session: string, state: string): Promise<true> {
  const reached = async () => ((await sessionState(m, session)) === state ? true : undefined);
  return waitFor(reached, WAIT_MS, withLog(`${session} to be ${state}`));
}

function remoteIdOf(target: string): string {
  return /remote session (\S+)$/.exec(target)![1]!;
}

async function remoteDaemon(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return run(["bun", CLI, "daemon", ...args], { env: remoteEnv });
}

async function stopLocalDaemon(env: Record<string, string> = {}): Promise<void> {
  await run(["bun", CLI, "daemon", "--stop"], { env });
}

/** Lines equal to `line` in `text`. */
function count(text: string, line: string): number {
  return text.split("\n").filter((l) => l.trim() === line).length;
}

describe.skipIf(!enabled)("remote persistence", () => {
  beforeAll(
    async () => {
      scratch = scratchDir("remote-");
      // The binary ptyhub supplies for this platform: compiled from these sources, cached as a release would be.
      const cached = releaseCachePath(localPlatform());
      mkdirSync(dirname(cached), { recursive: true });
      const build = await run(["bun", "build", "--compile", CLI, "--outfile", cached]);
      if (build.code !== 0) throw new Error(`bun build --compile failed: ${build.err}`);

      const remote = join(scratch, "remote");
      remoteEnv = {
        XDG_RUNTIME_DIR: join(remote, "run"),
        // The daemon's socket is per uid (/tmp/ptyhub-<uid>) unless named: the "remote" is this uid too.
        PTYHUB_SOCKET: join(remote, "run", "ptyhub", "daemon.sock"),
        XDG_CACHE_HOME: join(remote, "cache"),
        XDG_STATE_HOME: join(remote, "state"),
        TMPDIR: join(remote, "tmp"),
        PTYHUB_TEST_RUN: process.env.PTYHUB_TEST_RUN ?? "",
      };
      for (const d of [
        remoteEnv.XDG_RUNTIME_DIR!,
        remoteEnv.XDG_CACHE_HOME!,
        remoteEnv.XDG_STATE_HOME!,
        remoteEnv.TMPDIR!,
      ])
        mkdirSync(d, { recursive: true, mode: 0o700 });
      const envLine = Object.entries(remoteEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");
      // A host whose uname says it is something ptyhub is not built for.
      const fakeBin = join(scratch, "fakebin");
      mkdirSync(fakeBin);
      writeFileSync(join(fakeBin, "uname"), "#!/bin/sh\necho 'FreeBSD amd64'\n");
      chmodSync(join(fakeBin, "uname"), 0o755);

      // Our own key, passed as identity_file: the run's HOME is shared with the SSH tests and their keys.
      mkdirSync(dirname(KEY), { recursive: true, mode: 0o700 });
      const key = existsSync(KEY) ? KEY : await keygen(KEY);
      const pub = readFileSync(key + ".pub", "utf8");
      sshd = await startSshd({ extra: [`SetEnv ${envLine}`], authorizedKeys: pub });
      const fakePath = `SetEnv PATH=${fakeBin}:/usr/bin:/bin ${envLine}`;
      wrongArchSshd = await startSshd({ extra: [fakePath], authorizedKeys: pub });
      proxy = startProxy(sshd.port);
      mcp = await startMcp();
    },
    { timeout: OPEN_MS },
  );

  afterAll(async () => {
    await mcp?.close();
    proxy?.stop();
    await stopLocalDaemon();
    if (remoteEnv) await remoteDaemon(["--stop"]);
    await sshd?.stop();
    await wrongArchSshd?.stop();
    if (scratch) cleanup(scratch);
  }, 60_000);

  test(
    "the remote shell survives a cut: what ran meanwhile is read whole, once, with its exit code",
    async () => {
      const opened = await mcp.call("term_open", { name: "r1", ssh: persistTo(proxy.port) }, { timeout: OPEN_MS });
      expect(opened.error).toBeNull();
      expect(opened.data.shell_integration).toBe(true);
      expect(opened.data.target).toMatch(/remote session \S+$/);
      // The binary went to the per-user, versioned path; nothing there is readable by others.
      const binDir = join(remoteEnv.XDG_CACHE_HOME!, "ptyhub", "bin");
      expect(statSync(binDir).mode & 0o077).toBe(0);
      const [versionDir] = readdirSync(binDir);
      expect(versionDir).toMatch(/^\d+\.\d+\.\d+.*-[0-9a-f]{16}$/);
      expect(statSync(join(binDir, versionDir!)).mode & 0o077).toBe(0);
      expect(statSync(join(binDir, versionDir!, "ptyhub")).mode & 0o077).toBe(0);

      const first = await mcp.call("term_exec", { session: "r1", command: "echo one-$((40+2))" });
      expect(first.data.exit_code).toBe(0);
      expect(first.data.output).toContain("one-42");

      const done = join(scratch, "done-r1");
      // Runs remotely for a while, prints 300 numbered lines, leaves a file, and fails with 3.
      const job = `sleep 1; seq -f 'line-%g' 1 300; echo END-$((7*6)); touch ${done}; (exit 3)`;
      await mcp.call("term_send", { session: "r1", text: job });
      proxy.block(true);
      proxy.cut();
      await waitState(mcp, "r1", "reconnecting");
      // Input meanwhile fails, retryably, instead of hanging or vanishing.
      const refused = await mcp.call("term_send", { session: "r1", text: "echo typed-while-down" });
      expect(refused.error?.code).toBe("SSH_CONNECT_FAILED");
      expect(refused.data.error.retryable).toBe(true);
      // The command finishes on the remote host while we are cut off.
      await waitFor(() => existsSync(done), WAIT_MS, withLog("the remote command to finish"));
      proxy.block(false);

      const read = await mcp.call(
        "term_read",
        { session: "r1", until: "END-42", wait_ms: WAIT_MS },
        { timeout: 60_000 },
      );
      expect(read.error).toBeNull();
      // Whatever follows the match (the prompt) comes with the next read.
      const rest = await mcp.call("term_read", { session: "r1", wait_ms: 500 });
      const text = `${read.data.output}\n${rest.data.output}`;
      for (const n of [1, 2, 150, 299, 300]) expect(count(text, `line-${n}`)).toBe(1);
      expect(count(text, "END-42")).toBe(1);
      expect(text).not.toContain("typed-while-down");
      expect(await sessionState(mcp, "r1")).toBe("prompt");
      // The exit code of the command that ended during the cut came through the marks.
      expect(read.data.exit_code ?? rest.data.exit_code).toBe(3);
      const after = await mcp.call("term_exec", { session: "r1", command: "echo after" });
      expect(after.data.exit_code).toBe(0);
      expect(after.data.output).toContain("after");
      expect(after.data.output).not.toContain("line-");
      await mcp.call("term_close", { session: "r1" });
    },
    { timeout: 180_000 },
  );

  test(
    "a link that goes silent is noticed by keepalives and replaced; the output arrives once",
    async () => {
      const ssh = sshTo(proxy.port, { remote_persist: true, keepalive_s: 1 });
      const opened = await mcp.call("term_open", { name: "r4", ssh }, { timeout: OPEN_MS });
      expect(opened.error).toBeNull();
      await mcp.call("term_send", { session: "r4", text: "sleep 1; echo QUIET-$((2*21))" });
      proxy.freeze();
      const read = await mcp.call(
        "term_read",
        { session: "r4", until: "QUIET-42", wait_ms: 60_000 },
        { timeout: 90_000 },
      );
      expect(read.error).toBeNull();
      expect(read.data.matched).toBe("QUIET-42");
      expect(count(read.data.output as string, "QUIET-42")).toBe(1);
      const after = await mcp.call("term_exec", { session: "r4", command: "echo fine" });
      expect(after.data.exit_code).toBe(0);
      await mcp.call("term_close", { session: "r4" });
    },
    { timeout: 180_000 },
  );

  test(
    "term_list {ssh_host} lists remote sessions; a second server resumes one; term_close ends it",
    async () => {
      const opened = await mcp.call("term_open", { name: "r2", ssh: persistTo(sshd.port) }, { timeout: OPEN_MS });
      expect(opened.error).toBeNull();
      const remoteId = remoteIdOf(opened.data.target as string);
      await mcp.call("term_exec", { session: "r2", command: "export MARK=kept-$((5*5))" });

      // Another machine, as far as ptyhub can tell: its own local daemon.
      const otherRuntime = join(scratch, "other-runtime");
      mkdirSync(otherRuntime, { mode: 0o700 });
      const otherEnv = { XDG_RUNTIME_DIR: otherRuntime, PTYHUB_SOCKET: join(otherRuntime, "daemon.sock") };
      const other = await startMcp({ env: otherEnv });
      try {
        const listed = await other.call("term_list", { ssh_host: sshTo(sshd.port) }, { timeout: 60_000 });
        expect(listed.error).toBeNull();
        const ids = (listed.data.remote_sessions as { session: string }[]).map((s) => s.session);
        expect(ids).toContain(remoteId);

        const ssh = sshTo(sshd.port, { resume: remoteId });
        const resumed = await other.call("term_open", { name: "again", ssh }, { timeout: 60_000 });
        expect(resumed.error).toBeNull();
        expect(resumed.data.shell_integration).toBe(true);
        const echoed = await other.call("term_exec", { session: "again", command: "echo $MARK; (exit 4)" });
        expect(echoed.data.output).toContain("kept-25");
        expect(echoed.data.exit_code).toBe(4);

        const closed = await other.call("term_close", { session: "again" }, { timeout: 60_000 });
        expect(closed.error).toBeNull();
        const relisted = await other.call("term_list", { ssh_host: sshTo(sshd.port) }, { timeout: 60_000 });
        expect((relisted.data.remote_sessions as { session: string }[]).map((s) => s.session)).not.toContain(remoteId);
        await stopLocalDaemon(otherEnv);
      } finally {
        await other.close();
      }
      // The first server's session learns that its remote shell is gone.
      await waitState(mcp, "r2", "exited");
      await mcp.call("term_close", { session: "r2" });
    },
    { timeout: 180_000 },
  );

  test(
    "after the local daemon restarts the remote shell is there to resume, and a human can attach",
    async () => {
      const opened = await mcp.call("term_open", { name: "r5", ssh: persistTo(sshd.port) }, { timeout: OPEN_MS });
      expect(opened.error).toBeNull();
      const remoteId = remoteIdOf(opened.data.target as string);
      await mcp.call("term_exec", { session: "r5", command: "export KEPT=survived-$((3*3))" });
      // Stopping the local daemon detaches its remote sessions instead of ending them.
      await stopLocalDaemon();
      const resumed = await mcp.call(
        "term_open",
        { name: "r5b", ssh: sshTo(sshd.port, { resume: remoteId }) },
        { timeout: 60_000 },
      );
      expect(resumed.error).toBeNull();
      const echoed = await mcp.call("term_exec", { session: "r5b", command: "echo $KEPT" });
      expect(echoed.data.output).toContain("survived-9");

      // A human attaches to the resumed session, types into the remote shell and sees the answer.
      let seen = "";
      const human = Bun.spawn(["bun", CLI, "attach", "r5b"], {
        terminal: { cols: 100, rows: 30, data: (_t, d) => (seen += Buffer.from(d).toString("utf8")) },
      });
      try {
        await waitFor(() => seen.includes("survived-9"), WAIT_MS, withLog("the attached screen"));
        human.terminal!.write("echo HUMAN-$((20+1))\r");
        // The typed line echoes as HUMAN-$((20+1)): only the shell's answer contains HUMAN-21.
        const answered = () => (seen.includes("HUMAN-21") ? true : undefined);
        await waitFor(answered, WAIT_MS, withLog("the human's command to answer")).catch((e) => {
          throw new Error(`${(e as Error).message}\nthe human saw: ${JSON.stringify(seen.slice(-1500))}`);
        });
        human.terminal!.write("\x1c"); // ctrl+\ detaches; the session keeps running.
        expect(await Promise.race([human.exited, Bun.sleep(10_000).then(() => "timeout")])).toBe(0);
      } finally {
        if (human.exitCode === null) human.kill("SIGKILL");
      }
      const read = await mcp.call("term_read", { session: "r5b", mode: "history", from: -10 });
      expect(read.data.output).toContain("HUMAN-21");
      await mcp.call("term_close", { session: "r5b" });
    },
    { timeout: 180_000 },
  );

  test("a remote host ptyhub is not built for gets a clear error whose hint names only what works", async () => {
    const ssh = sshTo(wrongArchSshd.port, { remote_persist: true });
    const r = await mcp.call("term_open", { name: "arch", ssh }, { timeout: 60_000 });
    expect(r.error?.code).toBe("SPAWN_FAILED");
    expect(r.error?.message).toContain("FreeBSD amd64");
    // Nothing is published yet: no release download, only what can be done today.
    expect(r.error?.hint).toContain("Run ptyhub from source there");
    expect(r.error?.hint).not.toContain("install.sh");
    const names = (await mcp.call("term_list", {})).data.sessions.map((s: { session: string }) => s.session);
    expect(names).not.toContain("arch");
  }, 60_000);

  test(
    "run from source with no binary cached, the first open compiles one, says so on stderr, and caches it",
    async () => {
      // A server of its own, in-process (its log is its stderr), with an empty cache: nothing to upload yet.
      const cache = join(scratch, "from-source-cache");
      mkdirSync(cache, { recursive: true, mode: 0o700 });
      const fromSource = await startMcp({ env: { XDG_CACHE_HOME: cache, PTYHUB_PERSISTENT: "0" } });
      try {
        const opened = await fromSource.call(
          "term_open",
          { name: "built", ssh: persistTo(sshd.port) },
          { timeout: OPEN_MS },
        );
        expect(opened.error).toBeNull();
        const r = await fromSource.call("term_exec", { session: "built", command: "echo built-$((6*7))" });
        expect(r.data.exit_code).toBe(0);
        expect(r.data.output).toBe("built-42");
        expect(existsSync(releaseCachePath(localPlatform(), { XDG_CACHE_HOME: cache }))).toBe(true);
        expect(fromSource.stderr()).toMatch(/compiling ptyhub \S+ for \S+ from .* once per version/);
        expect(fromSource.stderr()).toMatch(/compiled ptyhub \S+ for \S+ in \d+\.\d s/);
        await fromSource.call("term_close", { session: "built" });
      } finally {
        await fromSource.close();
      }
    },
    OPEN_MS * 2,
  );

  test(
    "the remote daemon killed: the session ends with a clear reason, and calls fail at once",
    async () => {
      const opened = await mcp.call("term_open", { name: "r3", ssh: persistTo(proxy.port) }, { timeout: OPEN_MS });
      expect(opened.error).toBeNull();
      const status = await remoteDaemon(["--status", "--json"]);
      const pid = JSON.parse(status.out).pid as number;
      process.kill(pid, "SIGKILL");
      await waitState(mcp, "r3", "exited");
      const t0 = Date.now();
      const r = await mcp.call("term_exec", { session: "r3", command: "echo hi" });
      expect(r.error?.code).toBe("SESSION_EXITED");
      expect(r.error?.message).toContain("remote ptyhub daemon");
      expect(Date.now() - t0).toBeLessThan(5000);
      await mcp.call("term_close", { session: "r3" });
    },
    { timeout: 120_000 },
  );
});
