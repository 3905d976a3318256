/**
 * The daemon's life: started on demand without races, private (0700 directory, 0600 socket,
 * another uid refused), `--status`/`--stop`, idle exit, reaping its children, and a clear error
 * when an incompatible daemon holds the socket.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { reachDaemon } from "../../src/daemon-client/start.ts";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { PROTOCOL } from "../../src/daemon-client/protocol.ts";
import { daemonStatus, stopDaemon } from "../helpers/daemon.ts";
import { CLI } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { childrenOf, daemonsFor, errorCode, runCli, settleLeftovers, fixture } from "./helpers.ts";

const fx = fixture();
const env = fx.env;
const server = fx.server;

afterEach(fx.cleanup);

describe("starting the daemon", () => {
  test("two MCP servers opening sessions at the same moment end up with one daemon", async () => {
    const e = env();
    const [a, b] = await Promise.all([server(e, "a"), server(e, "b")]);
    const [ra, rb] = await Promise.all([
      a.ok("term_open", { command: "sleep 60" }),
      b.ok("term_open", { command: "sleep 60" }),
    ]);
    // Automatic names stay unique across clients of one daemon.
    expect(ra.session).not.toBe(rb.session);
    const st = await daemonStatus(e);
    expect(st?.sessions).toBe(2);
    expect(daemonsFor(e)).toEqual([st!.pid]);
  }, 30_000);

  test("racing starts: concurrent connect-or-start calls and hand-started daemons leave exactly one", async () => {
    const e = env();
    const clients = await Promise.all(
      Array.from({ length: 5 }, () => reachDaemon({ role: "test", env: e, start: true })),
    );
    const pids = new Set(clients.map((c) => c.daemon.pid));
    for (const c of clients) c.close();
    expect(pids.size).toBe(1);

    // `ptyhub daemon` by hand, three at once, while one already runs: all of them step aside.
    const extra = Array.from({ length: 3 }, () =>
      Bun.spawn([process.execPath, CLI, "daemon"], { env: e, stdio: ["ignore", "ignore", "ignore"] }),
    );
    const codes = await Promise.all(extra.map((p) => p.exited));
    expect(codes).toEqual([0, 0, 0]);
    expect(daemonsFor(e)).toEqual([...pids]);
  }, 30_000);

  test("three daemons started at once by hand, with none running: exactly one stays", async () => {
    const e = env();
    const procs = Array.from({ length: 3 }, () =>
      Bun.spawn([process.execPath, CLI, "daemon"], { env: e, stdio: ["ignore", "ignore", "ignore"] }),
    );
    await waitFor(async () => (await daemonStatus(e)) !== null, 10_000, "a daemon to answer");
    await waitFor(() => procs.filter((p) => p.exitCode === null).length === 1, 10_000, "all but one to step aside");
    const st = await daemonStatus(e);
    const survivor = procs.find((p) => p.exitCode === null)!;
    expect(st!.pid).toBe(survivor.pid);
    expect(procs.filter((p) => p.exitCode !== null).map((p) => p.exitCode)).toEqual([0, 0]);
  }, 30_000);
});

describe("privacy", () => {
  test("the socket's directory is 0700, the socket 0600, and the log is in the state dir", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { command: "sleep 60" });
    const paths = daemonPaths(e);
    expect(paths.socket).toBe(join(e.XDG_RUNTIME_DIR!, "ptyhub", "daemon.sock"));
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    const sock = statSync(paths.socket);
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o777).toBe(0o600);
    expect(paths.log).toBe(join(e.XDG_STATE_HOME!, "ptyhub", "daemon.log"));
    expect(statSync(paths.log).mode & 0o777).toBe(0o600);
    expect(readFileSync(paths.log, "utf8")).toContain(`listening on ${paths.socket}`);
  }, 30_000);

  const isRoot = process.getuid?.() === 0;
  // The other user needs a python3 it can run: the system's, not one under root's home.
  const systemPython = Bun.which("python3", { PATH: "/usr/bin:/bin:/usr/local/bin" });

  test.skipIf(!isRoot || !systemPython)(
    "a peer with another uid is refused: by the socket's permissions, and by the daemon's own uid check",
    async () => {
      // Runs as root (CI does): the "other user" is a process with an unused uid, spawned with
      // setuid. Its directory must be reachable by that user for the second half, so it lives
      // under /tmp rather than in the test run's private root.
      const OTHER_UID = 54_321;
      const base = mkdtempSync("/tmp/ptyhub-uid-");
      try {
        chmodSync(base, 0o711);
        const e = env({ XDG_RUNTIME_DIR: join(base, "r"), XDG_STATE_HOME: join(base, "s") });
        const c = await reachDaemon({ role: "test", env: e, start: true });
        c.close();
        const paths = daemonPaths(e);
        chmodSync(join(base, "r"), 0o711);
        const probe = `
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connect_error": e.errno})); sys.exit(0)
try:
    s.sendall((json.dumps({"type": "hello", "protocol": ${PROTOCOL}, "version": "x", "pid": 1, "role": "intruder"}) + "\\n").encode())
except OSError:
    pass  # The daemon may hang up before our hello: what it said is still there to read.
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk: break
    data += chunk
print(json.dumps({"frames": [json.loads(l) for l in data.decode().splitlines() if l]}))
`;
        const asOther = async () => {
          const p = Bun.spawn([systemPython!, "-c", probe, paths.socket], {
            uid: OTHER_UID,
            gid: OTHER_UID,
            cwd: "/",
            stdout: "pipe",
            stderr: "pipe",
            env: { PATH: "/usr/bin:/bin" },
          });
          const [out, err] = await Promise.all([
            new Response(p.stdout).text(),
            new Response(p.stderr).text(),
            p.exited,
          ]);
          if (!out.trim()) throw new Error(`probe failed: ${err}`);
          return JSON.parse(out) as {
            connect_error?: number;
            frames?: Array<{ type: string; error?: { message: string } }>;
          };
        };

        // 1. The kernel: the 0700 directory (and 0600 socket) stop another user at connect().
        const denied = await asOther();
        expect(denied.connect_error).toBe(13); // EACCES

        // 2. The daemon: with the permissions opened up on purpose, it still refuses the peer by
        //    its kernel-reported uid (SO_PEERCRED), before any session call can happen.
        chmodSync(paths.dir, 0o711);
        chmodSync(paths.socket, 0o666);
        const refused = await asOther();
        expect(refused.connect_error).toBeUndefined();
        expect(refused.frames?.map((f) => f.type)).toEqual(["fatal"]);
        expect(refused.frames?.[0]?.error?.message).toContain(`uid ${OTHER_UID} may not use it`);
        expect(readFileSync(paths.log, "utf8")).toContain(`refused a connection from uid ${OTHER_UID}`);
        chmodSync(paths.dir, 0o700);
        chmodSync(paths.socket, 0o600);
        await stopDaemon(e);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

describe("daemon lifecycle", () => {
  test("ptyhub daemon --status and --stop", async () => {
    const e = env();
    const none = await runCli(e, ["daemon", "--status"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no daemon is running");

    const a = await server(e);
    const opened = await a.ok("term_open", { name: "s1", command: "sleep 300" });
    const status = await runCli(e, ["daemon", "--status"]);
    expect(status.code).toBe(0);
    const paths = daemonPaths(e);
    expect(status.stdout).toContain(paths.socket);
    expect(status.stdout).toContain(paths.log);
    expect(status.stdout).toMatch(/sessions 1\b/);
    const json = JSON.parse((await runCli(e, ["daemon", "--status", "--json"])).stdout);
    expect(json).toMatchObject({ running: true, sessions: 1, protocol: PROTOCOL, socket: paths.socket });

    const stop = await runCli(e, ["daemon", "--stop"]);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped daemon pid ${json.pid} (1 session ended)`);
    expect(alive(json.pid)).toBe(false);
    expect(alive(Number(opened.pid))).toBe(false);
    expect(existsSync(paths.socket)).toBe(false);
    // The MCP server learns that the session went with the daemon.
    expect(errorCode(await a.call("term_read", { session: "s1" }))).toBe("DAEMON_UNAVAILABLE");
    expect((await runCli(e, ["daemon", "--stop"])).stdout).toContain("no daemon is running");
  }, 30_000);

  test("with no session and no client for PTYHUB_DAEMON_IDLE_MS, the daemon exits by itself", async () => {
    const e = env({ PTYHUB_DAEMON_IDLE_MS: "300" });
    const c = await reachDaemon({ role: "test", env: e, start: true });
    const pid = c.daemon.pid;
    const r = await c.invoke("open", { name: "keep", command: "sleep", args: ["300"], cwd: "/" }, { clientId: "t" });
    c.close();
    // A session keeps it alive though nobody is connected… (the subject: three idle periods pass, it stays)
    await Bun.sleep(900);
    expect(alive(pid)).toBe(true);
    // …and once the session is gone, it leaves after the idle period.
    const c2 = await reachDaemon({ role: "test", env: e, start: false });
    expect(c2.daemon.pid).toBe(pid);
    await c2.invoke("close", { session: r.session });
    c2.close();
    await waitFor(() => !alive(pid), 5000, "the idle daemon to exit");
    expect(existsSync(daemonPaths(e).socket)).toBe(false);
  }, 30_000);

  test("the daemon reaps its children: no zombie after a session's program exits", async () => {
    const e = env();
    const a = await server(e);
    await a.ok("term_open", { name: "quick", command: "echo hi; exit 4" });
    await a.ok("term_open", { name: "bg", command: "sleep 0.2 & sleep 0.3; exit 0" });
    const st = await daemonStatus(e);
    await waitFor(
      async () => ((await a.ok("term_list")).sessions as Array<{ alive: boolean }>).every((s) => !s.alive),
      5000,
      "both programs to exit",
    );
    await waitFor(
      () => childrenOf(st!.pid).filter((c) => !c.cmd.includes("daemon")).length === 0,
      3000,
      "no child left",
    );
    expect(childrenOf(st!.pid).filter((c) => c.state === "Z")).toEqual([]);
  }, 30_000);

  test("an incompatible daemon on the socket: term_open says so clearly, and daemon --stop removes it by pid", async () => {
    const e = env();
    const paths = daemonPaths(e);
    // A stand-in for an old daemon: it says hello with another protocol and owns this pid.
    const stand = Bun.spawn(["sleep", "60"], { stdio: ["ignore", "ignore", "ignore"] });
    const fake = Bun.listen({
      unix: paths.socket,
      socket: {
        open(s) {
          s.write(
            JSON.stringify({
              type: "hello",
              protocol: PROTOCOL + 1,
              version: "0.0.1-old",
              pid: stand.pid,
              role: "daemon",
            }) + "\n",
          );
        },
        data() {},
      },
    });
    try {
      const a = await server(e);
      const r = await a.call("term_open", { name: "x" });
      expect(errorCode(r)).toBe("DAEMON_UNAVAILABLE");
      expect(r.text).toContain(`speaks protocol ${PROTOCOL + 1}`);
      expect(r.text).toContain("0.0.1-old");
      expect(r.text).toContain("ptyhub daemon --stop");
      // In-process sessions need no daemon, and still work.
      const local = await a.call("term_open", { name: "loc", persistent: false });
      expect(local.isError).toBe(false);
      await a.ok("term_close", { session: "loc" });
      const stop = await runCli(e, ["daemon", "--stop"]);
      expect(stop.stdout).toContain(`stopped the incompatible daemon (pid ${stand.pid})`);
      expect(await stand.exited).not.toBe(0);
    } finally {
      fake.stop(true);
      stand.kill("SIGKILL");
    }
  }, 30_000);
});

afterAll(fx.cleanup);

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  await fx.cleanup();
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
