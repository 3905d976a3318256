/**
 * The windows-x64 release exe, run here under Wine 8.0 (Debian's wine64): it must start and
 * serve, whatever path built it. It once printed nothing at all: in exes built through the
 * Bun.build() API `import.meta.main` is false on Windows (oven-sh/bun#30084).
 *
 * What Wine carries (../shared/notes/windows-under-wine.md): loopback TCP, processes and named
 * pipes (the daemon listens on `\\.\pipe\ptyhub-<user>`: Wine 8.0 has no Unix-domain sockets), but
 * no stdin from a Linux pipe (so MCP runs over Streamable HTTP, not stdio). SSH sessions to a real sshd on 127.0.0.1 are how
 * Windows users reach their hosts today. Stock Wine 8.0 lacks bcryptprimitives.dll's ProcessPrng,
 * which every Bun exe needs: a 12-line shim (test/ship/wine/bcryptprimitives.c) built with mingw
 * stands in for it in the test's own Wine prefix. Local sessions run on a pseudo console (ConPTY
 * through bun:ffi, src/backend/local/conpty/), where term_exec completes on cmd.exe's markers
 * (src/terminal/windows-shells.ts); what Wine cannot carry (resize: E_NOTIMPL, PowerShell) is left out.
 *
 * Needs /usr/lib/wine/wine64 and x86_64-w64-mingw32-gcc (Debian: wine, wine64,
 * gcc-mingw-w64-x86-64-win32). Without them the file skips, unless PTYHUB_REQUIRE_WINE=1 (CI sets
 * it), when a missing tool is a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Subprocess } from "bun";
import { findTarget } from "../../scripts/release-targets.ts";
import { currentUser, haveSshd, keygen, startSshd, type Sshd } from "../ssh/sshd.ts";
import { BUILD_TIMEOUT_MS, VERSION, isolatedEnv, makeTempDir, runProcess, targetBuild } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";
import { PROTOCOL } from "../../src/daemon-client/protocol.ts";
import { WATCH_MS } from "../../src/daemon/server.ts";

const WINE = "/usr/lib/wine/wine64";
const WINESERVER = "/usr/lib/wine/wineserver64";
const MINGW = Bun.which("x86_64-w64-mingw32-gcc");
const available = existsSync(WINE) && MINGW !== null && haveSshd;
if (!available && process.env.PTYHUB_REQUIRE_WINE === "1") {
  throw new Error(`PTYHUB_REQUIRE_WINE=1 but ${WINE}, x86_64-w64-mingw32-gcc or sshd is missing`);
}

/** A first Wine start sets up its prefix (~10 s); calls through Wine are slower than native ones. */
const PREFIX_TIMEOUT_MS = 120_000;
const CALL_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 180_000;
/** How many rounds of the daemon's watch (its idle and socket check) the pipe test waits to see. */
const WATCH_ROUNDS = 3;
/** How often term_list is asked whether a session has exited. */
const EXIT_POLL_MS = 200;
/** ptyhub refuses HTTP tokens shorter than this. */
const TOKEN = "wine-smoke-token-0123456789abcdef0123456789";

const target = findTarget("bun-windows-x64");
if (!target) throw new Error("windows-x64 is no longer a release target");

let sandbox: string;
let exe: string;
let env: Record<string, string>;
let server: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let url: string;
let sshd: Sshd | undefined;
let identity: string;

/** Reads the server's stderr until its banner names the URL it listens at. */
async function waitForUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => void reader.cancel(), CALL_TIMEOUT_MS);
  try {
    for (;;) {
      const found = /at (http:\/\/\S+\/mcp)\s*$/m.exec(text)?.[1];
      if (found) return found;
      const { done, value } = await reader.read();
      if (done) throw new Error(`the exe ended before listening: ${text}`);
      text += dec.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

/** Starts the exe as an MCP server over HTTP on a free port: the process and its URL. */
async function startServer(): Promise<{ proc: Subprocess<"ignore", "pipe", "pipe">; url: string }> {
  const proc = Bun.spawn([WINE, exe, "serve", "--http", "--port", "0"], {
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  // The banner goes to stdout; stderr is drained so the exe never blocks on a full pipe.
  void new Response(proc.stderr).text();
  return { proc, url: await waitForUrl(proc.stdout) };
}

async function connect(at: string = url): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(at), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  const client = new Client({ name: "ptyhub-wine-smoke", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
}

describe.skipIf(!available)("windows-x64 exe under Wine", () => {
  beforeAll(async () => {
    const build = await targetBuild(target);
    sandbox = makeTempDir("wine");
    exe = build.binaryPath;
    env = isolatedEnv(join(sandbox, "home"), {
      WINEPREFIX: join(sandbox, "prefix"),
      WINEDEBUG: "-all",
      PTYHUB_HTTP_TOKEN: TOKEN,
    });
    // isolatedEnv's socket is a Unix-socket path, which Wine 8.0 cannot listen on: the daemon takes
    // its default named pipe, private to this test's prefix (its own wineserver, its own pipes).
    delete env.PTYHUB_SOCKET;
    const boot = await runProcess([WINE, "wineboot", "--init"], { env, timeoutMs: PREFIX_TIMEOUT_MS });
    if (boot.code !== 0) throw new Error(`wineboot failed (${boot.code}): ${boot.stderr}`);
    const shim = join(sandbox, "bcryptprimitives.dll");
    const source = join(import.meta.dir, "wine", "bcryptprimitives.c");
    const cc = await runProcess([MINGW!, "-O2", "-shared", "-o", shim, source, "-lbcrypt"]);
    if (cc.code !== 0) throw new Error(`building the ProcessPrng shim failed: ${cc.stderr}`);
    copyFileSync(shim, join(env.WINEPREFIX!, "drive_c", "windows", "system32", "bcryptprimitives.dll"));
    // Wine leaves a pseudo console's child on its parent's std handles: this test-only launcher
    // reopens CONIN$/CONOUT$ before running the command (real Windows needs none).
    const stdfix = join(sandbox, "stdfix.exe");
    const fix = await runProcess([MINGW!, "-O2", "-o", stdfix, join(import.meta.dir, "wine", "stdfix.c")]);
    if (fix.code !== 0) throw new Error(`building the std-handle launcher failed: ${fix.stderr}`);
    env.PTYHUB_CONPTY_LAUNCHER = `Z:${stdfix.replaceAll("/", "\\")}`;

    const keys = join(sandbox, "keys");
    mkdirSync(keys);
    identity = await keygen(join(keys, "id_ed25519"));
    sshd = await startSshd({ authorizedKeys: await Bun.file(`${identity}.pub`).text() });

    const started = await startServer();
    server = started.proc;
    url = started.url;
  }, BUILD_TIMEOUT_MS + PREFIX_TIMEOUT_MS);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    // Every Wine process of the prefix (wineserver, services, the exe's children) ends with it.
    if (env) await runProcess([WINESERVER, "-k"], { env, timeoutMs: CALL_TIMEOUT_MS });
    await sshd?.stop();
    if (sandbox) rmSync(sandbox, { recursive: true, force: true });
  }, PREFIX_TIMEOUT_MS);

  test("--version prints the stamped version", async () => {
    const result = await runProcess([WINE, exe, "--version"], { env });
    expect(result.stdout.trim()).toBe(`ptyhub ${VERSION}`);
    expect(result.code).toBe(0);
  });

  /**
   * The daemon's pipe name is open to anyone: another user can create it first. Both ends prove the
   * user's key (src/daemon-client/pipe-auth.ts), which Wine carries: it runs everything as one user, so
   * "another user" is a ptyhub with another key (its own XDG_STATE_HOME), and a keyless client is a
   * raw pipe client (wine/pipeclient.c). A pipe of its own keeps this apart from the other tests' daemon.
   */
  test(
    "both ends prove the user's key: a squatter and a keyless client are refused, the daemon serves on",
    async () => {
      const dir = makeTempDir("wine-pipe");
      const pipe = String.raw`\\.\pipe\ptyhub-key-test`;
      const owner = { ...env, PTYHUB_SOCKET: pipe, XDG_STATE_HOME: join(dir, "owner") };
      const stranger = { ...owner, XDG_STATE_HOME: join(dir, "stranger") };
      const status = (as: Record<string, string>) =>
        runProcess([WINE, exe, "daemon", "--status", "--json"], { env: as });
      const daemon = Bun.spawn([WINE, exe, "daemon"], {
        env: owner,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      try {
        const first = await waitFor(
          async () => {
            const r = await status(owner);
            return r.code === 0 ? r : null;
          },
          CALL_TIMEOUT_MS,
          "the daemon to answer on its pipe",
        );
        expect(JSON.parse(first.stdout)).toMatchObject({ running: true, socket: pipe });
        const keyFile = join(owner.XDG_STATE_HOME, "ptyhub", "daemon", "daemon.key");
        expect(readFileSync(keyFile, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);

        // To a ptyhub with another key, the daemon is a squatter: refused, stable code and kind.
        const squatted = await status(stranger);
        expect(squatted.code).not.toBe(0);
        expect(squatted.stderr).toContain("DAEMON_UNAVAILABLE");
        expect(squatted.stderr).toContain("is not your ptyhub daemon: its proof of your key is wrong");
        expect(squatted.stderr).toContain("PTYHUB_SOCKET");
        // Nor does a daemon of theirs start as a second instance of the pipe's name.
        const second = await runProcess([WINE, exe, "daemon"], { env: stranger });
        expect(second.code).toBe(1);
        expect(second.stderr).toContain("already serves");

        // A client that cannot prove the key gets the daemon's hello and proof, then `fatal`.
        const client = join(dir, "pipeclient.exe");
        const cc = await runProcess([MINGW!, "-O2", "-o", client, join(import.meta.dir, "wine", "pipeclient.c")]);
        expect(cc.code, cc.stderr).toBe(0);
        const frames = join(dir, "frames.jsonl");
        const hello = {
          type: "hello",
          protocol: PROTOCOL,
          version: "raw",
          pid: 1,
          role: "raw",
          challenge: "x".repeat(44),
        };
        const call = { type: "call", id: 1, method: "status", params: {}, ctx: { clientId: "raw", elicit: false } };
        writeFileSync(frames, [hello, call].map((f) => `${JSON.stringify(f)}\n`).join(""));
        const raw = await runProcess([WINE, client, pipe, `Z:${frames.replaceAll("/", "\\")}`], { env });
        expect(raw.code, raw.stderr).toBe(0);
        const got = raw.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(got.map((f) => f.type)).toEqual(["hello", "auth", "fatal"]);
        expect(got[2]).toMatchObject({ error: { code: "DAEMON_UNAVAILABLE" } });
        expect(JSON.stringify(got[2])).toContain("sent call before its proof");

        // The daemon is still up and serves its own user.
        const after = await status(owner);
        expect(after.code, after.stderr).toBe(0);
        expect(JSON.parse(after.stdout)).toMatchObject({ running: true, pid: JSON.parse(first.stdout).pid });
        // Its watch has run a few times by now. It never connects to its own pipe (stat-ing a pipe
        // does, on Windows): no client that hung up at once is in its log.
        await waitFor(
          async () => JSON.parse((await status(owner)).stdout).uptime_ms > WATCH_ROUNDS * WATCH_MS,
          CALL_TIMEOUT_MS,
          "the daemon's watch to run",
        );
        const log = readFileSync(join(owner.XDG_STATE_HOME, "ptyhub", "daemon.log"), "utf8");
        expect(log).not.toContain("client socket error");
        const stop = await runProcess([WINE, exe, "daemon", "--stop"], { env: owner });
        expect(stop.code, stop.stderr).toBe(0);
        await daemon.exited;
      } finally {
        daemon.kill("SIGKILL");
        await daemon.exited;
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "MCP over HTTP: initialize, tools/list, and an SSH session with exact exit codes",
    async () => {
      const client = await connect();
      try {
        expect(client.getServerVersion()).toMatchObject({ name: "ptyhub", version: VERSION });
        const tools = (await client.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining(["term_open", "term_exec", "term_send", "term_read"]));

        const opened = await call(client, "term_open", {
          name: "remote",
          ssh: {
            host: "127.0.0.1",
            port: sshd!.port,
            user: currentUser,
            identity_file: identity,
            host_key: "accept-new",
          },
        });
        expect(opened.isError, JSON.stringify(opened.content)).toBeFalsy();
        expect(opened.structuredContent).toMatchObject({ session: "remote", kind: "ssh" });

        const ran = await call(client, "term_exec", { session: "remote", command: "echo from-wine; (exit 3)" });
        expect(ran.structuredContent).toMatchObject({ status: "done", exit_code: 3, output: "from-wine" });
        const ok = await call(client, "term_exec", { session: "remote", command: "uname -s" });
        expect(ok.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "Linux" });
        const closed = await call(client, "term_close", { session: "remote" });
        expect(closed.structuredContent).toMatchObject({ session: "remote", closed: true });
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
  /** The session's entry in term_list once it has exited (a pseudo console reports exit by polling). */
  async function exitedEntry(client: Client, session: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + CALL_TIMEOUT_MS;
    for (;;) {
      const list = await call(client, "term_list", {});
      const sessions = (list.structuredContent as { sessions: Record<string, unknown>[] }).sessions;
      const entry = sessions.find((s) => s.session === session);
      if (entry?.state === "exited" || Date.now() > deadline) return entry ?? {};
      await Bun.sleep(EXIT_POLL_MS);
    }
  }

  test(
    "a local cmd.exe on a pseudo console: its output, exit codes, typed input",
    async () => {
      const client = await connect();
      try {
        const once = await call(client, "term_open", {
          name: "once",
          command: "cmd.exe",
          args: ["/c", "echo from-conpty & exit 5"],
        });
        expect(once.isError, JSON.stringify(once.content)).toBeFalsy();
        expect(once.structuredContent).toMatchObject({ session: "once", kind: "local" });
        expect(await exitedEntry(client, "once")).toMatchObject({ state: "exited", exit_code: 5 });
        const screen = await call(client, "term_read", { session: "once", mode: "screen" });
        expect((screen.structuredContent as { output: string }).output).toContain("from-conpty");

        const shell = await call(client, "term_open", { name: "cmd", command: "cmd.exe" });
        expect(shell.isError, JSON.stringify(shell.content)).toBeFalsy();
        const typed = await call(client, "term_send", {
          session: "cmd",
          text: "echo typed-%OS%",
          until: "typed-Windows_NT",
          wait_ms: 30_000,
        });
        expect(typed.structuredContent).toMatchObject({ matched: "typed-Windows_NT" });
        await call(client, "term_send", { session: "cmd", text: "exit 7", wait_ms: 1000 });
        expect(await exitedEntry(client, "cmd")).toMatchObject({ state: "exited", exit_code: 7 });
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "term_exec in cmd.exe completes on its markers, with each command's exit code",
    async () => {
      const client = await connect();
      try {
        // No command: the default session, %COMSPEC% (cmd.exe), gets the markers too.
        const opened = await call(client, "term_open", { name: "exec" });
        expect(opened.isError, JSON.stringify(opened.content)).toBeFalsy();
        const hi = await call(client, "term_exec", { session: "exec", command: "echo hi" });
        // The output is the command's alone: not the typed line's echo, not the next prompt.
        expect(hi.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "hi", via: "marker" });
        const three = await call(client, "term_exec", { session: "exec", command: "cmd /c exit 3" });
        expect(three.structuredContent).toMatchObject({ status: "done", exit_code: 3, output: "" });
        // A builtin leaves ERRORLEVEL as it was: the marker line sets it to 0 before each command.
        const after = await call(client, "term_exec", { session: "exec", command: "echo after" });
        expect(after.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "after" });
        const failed = await call(client, "term_exec", { session: "exec", command: "dir nonexistent" });
        expect(failed.structuredContent).toMatchObject({ status: "done", exit_code: 1 });
        expect((failed.structuredContent as { output: string }).output).toContain("File not found");
        // The end mark reports the working directory too.
        const moved = await call(client, "term_exec", { session: "exec", command: "cd /d C:\\windows" });
        expect(moved.structuredContent).toMatchObject({ status: "done", exit_code: 0, cwd: "C:\\windows" });
        // `if` and `for` take the rest of the line as theirs: the end marker must still run once.
        const loop = await call(client, "term_exec", { session: "exec", command: "for %i in (a b) do @echo %i" });
        expect(loop.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "a\nb" });
        const skipped = await call(client, "term_exec", { session: "exec", command: "if 1==2 echo never" });
        expect(skipped.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "" });
        const branch = await call(client, "term_exec", {
          session: "exec",
          command: "if exist C:\\windows (echo yes) else (echo no)",
        });
        expect(branch.structuredContent).toMatchObject({ status: "done", exit_code: 0, output: "yes" });
        // No session named: term_exec's own `main`, the default shell, created on first use.
        const main = await call(client, "term_exec", { command: "echo from-main" });
        expect(main.structuredContent).toMatchObject({ session: "main", status: "done", exit_code: 0 });
        expect(main.structuredContent).toMatchObject({ output: "from-main" });
        await call(client, "term_close", { session: "main" });
        const lines = await call(client, "term_exec", { session: "exec", command: "echo a\necho b" });
        expect(lines.isError).toBe(true);
        expect(lines.structuredContent).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });
      } finally {
        await call(client, "term_close", { session: "exec" });
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "closing a pseudo console session ends its program",
    async () => {
      const client = await connect();
      try {
        await call(client, "term_open", { name: "long", command: "cmd.exe" });
        const closed = await call(client, "term_close", { session: "long" });
        // The job object ended the program (and anything it started) with exit code 1.
        expect(closed.structuredContent).toMatchObject({ session: "long", closed: true, exit_code: 1 });
        const list = await call(client, "term_list", {});
        const sessions = (list.structuredContent as { sessions: { session: string }[] }).sessions;
        expect(sessions.map((s) => s.session)).not.toContain("long");
      } finally {
        await client.close();
      }
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a persistent cmd.exe session lives in the daemon: it outlives a killed MCP server",
    async () => {
      // Its own server, killed the hard way: nothing it could do on exit keeps the session alive.
      const first = await startServer();
      let second: Awaited<ReturnType<typeof startServer>> | undefined;
      try {
        const before = await connect(first.url);
        try {
          const opened = await call(before, "term_open", { name: "kept", command: "cmd.exe", persistent: true });
          expect(opened.isError, JSON.stringify(opened.content)).toBeFalsy();
          const typed = await call(before, "term_send", {
            session: "kept",
            text: "set KEPT=kept-%OS%",
            wait_ms: 1000,
          });
          expect(typed.isError, JSON.stringify(typed.content)).toBeFalsy();
        } finally {
          await before.close();
        }
        first.proc.kill("SIGKILL");
        await first.proc.exited;

        second = await startServer();
        const after = await connect(second.url);
        try {
          const list = await call(after, "term_list", {});
          const sessions = (list.structuredContent as { sessions: Record<string, unknown>[] }).sessions;
          expect(sessions.find((x) => x.session === "kept")).toMatchObject({ alive: true, persistent: true });
          // The variable set before the kill is still in the same cmd.exe.
          const read = await call(after, "term_send", {
            session: "kept",
            text: "echo value=%KEPT%=",
            until: "value=kept-Windows_NT=",
            wait_ms: 30_000,
          });
          expect(read.structuredContent).toMatchObject({ matched: "value=kept-Windows_NT=" });
          // Its marks still count through the daemon: the new server knows the session's nonce.
          const ran = await call(after, "term_exec", { session: "kept", command: "echo %KEPT%& cmd /c exit 4" });
          expect(ran.structuredContent).toMatchObject({ status: "done", exit_code: 4, output: "kept-Windows_NT" });
          const closed = await call(after, "term_close", { session: "kept" });
          expect(closed.structuredContent).toMatchObject({ session: "kept", closed: true });
        } finally {
          await after.close();
        }
      } finally {
        first.proc.kill("SIGKILL");
        second?.proc.kill("SIGKILL");
        await Promise.all([first.proc.exited, second?.proc.exited]);
        // The daemon is a Wine process of the prefix: afterAll's `wineserver -k` ends it.
      }
    },
    TEST_TIMEOUT_MS,
  );
});
