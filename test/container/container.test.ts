/**
 * Container sessions end to end: the real MCP server (from source, over stdio) opens `container`
 * sessions in containers of a private dockerd (test/helpers/dockerd.ts) through its Engine API;
 * the containers run images made without a registry (bash minbase, busybox-only, dash-only) with
 * `--network none`. The docker CLI only sets the scene and checks the inside; ptyhub never uses it.
 * Persistent sessions run a ptyhub compiled from these sources inside the container, placed there
 * by ptyhub itself.
 *
 * Needs root, dockerd and the docker CLI (and debootstrap on a machine whose image cache is empty):
 * without them the file skips, unless PTYHUB_REQUIRE_DOCKER=1 (CI sets it), when that is a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  containerTestsEnabled,
  importBashImage,
  importBusyboxImage,
  importDashImage,
} from "../helpers/container-images.ts";
import { startDockerd, type Dockerd } from "../helpers/dockerd.ts";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { run } from "../ssh/sshd.ts";
import { startProxy } from "../remote/proxy.ts";
import { alive, waitFor } from "../helpers/wait.ts";

const enabled = containerTestsEnabled();

/** Set-up: debootstrap on a machine without the cached image (about a minute), then the imports. */
const SETUP_MS = 240_000;
/** The first persistent open compiles ptyhub from source (bun build --compile) and places ~100 MB. */
const FIRST_PERSIST_OPEN_MS = 240_000;
const WAIT_MS = 30_000;

let dockerd: Dockerd;
let mcp: StdioMcp;

const BASH = "ptyhub-bash";
const BUSYBOX = "ptyhub-busybox";
const DASH = "ptyhub-dash";

/** A container kept running by a shell reading its (open, idle) stdin: even the dash-only image has that. */
async function runContainer(name: string, image: string): Promise<void> {
  await dockerd.dockerOk(["run", "-d", "-i", "--network", "none", "--name", name, image, "/bin/sh"]);
}

function containerOf(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, socket: dockerd.socket, ...extra };
}

async function open(args: Record<string, unknown>, timeout = WAIT_MS * 2) {
  return mcp.call("term_open", args, { timeout });
}

async function exec(session: string, command: string) {
  const r = await mcp.call("term_exec", { session, command });
  if (r.isError) throw new Error(`term_exec ${command}: ${r.text}`);
  return r.data;
}

async function sessionInfo(session: string): Promise<Record<string, any> | undefined> {
  const r = await mcp.call("term_list", {});
  return (r.data.sessions as Record<string, any>[]).find((s) => s.session === session);
}

/** Exit codes and cwd across calls, the way a local session reports them. */
async function checkExactness(session: string): Promise<void> {
  expect(await exec(session, "echo hi")).toMatchObject({ status: "done", output: "hi", exit_code: 0 });
  expect(await exec(session, "false")).toMatchObject({ status: "done", exit_code: 1 });
  expect(await exec(session, "(exit 7)")).toMatchObject({ status: "done", exit_code: 7 });
  expect(await exec(session, "cd /tmp")).toMatchObject({ exit_code: 0, cwd: "/tmp" });
  expect(await exec(session, "pwd")).toMatchObject({ output: "/tmp", exit_code: 0, cwd: "/tmp" });
}

/** Host pids of processes whose command line has every one of `parts`. */
function hostPids(...parts: string[]): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (parts.every((p) => cmd.includes(p))) out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

describe.skipIf(!enabled)("container sessions", () => {
  beforeAll(async () => {
    dockerd = await startDockerd();
    await runContainer(BASH, await importBashImage(dockerd));
    await runContainer(BUSYBOX, await importBusyboxImage(dockerd));
    await runContainer(DASH, await importDashImage(dockerd));
    mcp = await startMcp();
  }, SETUP_MS);

  afterAll(async () => {
    await mcp?.close();
    await run(["bun", CLI, "daemon", "--stop"]);
    await dockerd?.stop();
  }, 60_000);

  test("plain exec in a bash container: exact exit codes and cwd, the login shell, kind and target", async () => {
    const r = await open({ name: "plain", container: containerOf(BASH, { persist: false }) });
    expect(r.error).toBeNull();
    expect(r.data).toMatchObject({ kind: "container", target: `docker:${BASH} (plain exec)`, shell_integration: true });
    await checkExactness("plain");
    expect((await exec("plain", "echo $BASH_VERSION")).output).toMatch(/^5\./);
    await mcp.call("term_close", { session: "plain" });
  }, 60_000);

  test("resize reaches stty; ctrl+c interrupts; term_close ends the shell inside the container", async () => {
    const r = await open({ name: "tty", cols: 100, rows: 30, container: containerOf(BASH, { persist: false }) });
    expect(r.error).toBeNull();
    expect((await exec("tty", "stty size")).output).toBe("30 100");
    await mcp.call("term_resize", { session: "tty", cols: 90, rows: 25 });
    expect((await exec("tty", "stty size")).output).toBe("25 90");
    const sleeping = await mcp.call("term_exec", { session: "tty", command: "sleep 30", timeout_ms: 300 });
    expect(sleeping.data.status).toBe("running");
    await mcp.call("term_send", { session: "tty", keys: ["ctrl+c"], wait_ms: 1000 });
    expect(await exec("tty", "echo back")).toMatchObject({ status: "done", output: "back", exit_code: 0 });

    const shellPid = (await exec("tty", "echo $$")).output;
    const inside = () => dockerd.docker(["exec", BASH, "sh", "-c", `kill -0 ${shellPid}`]).then((x) => x.code === 0);
    expect(await inside()).toBe(true);
    const closed = await mcp.call("term_close", { session: "tty" });
    expect(closed.data.closed).toBe(true);
    await waitFor(async () => !(await inside()), WAIT_MS, `shell ${shellPid} to end inside ${BASH}`);
  }, 60_000);

  test("a missing container, an unreachable engine, sandbox: clear errors", async () => {
    const missing = await open({ container: containerOf("no-such-container") });
    expect(missing.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(missing.error?.hint).toContain("term_list {containers: true}");
    const nowhere = await open({ container: { name: BASH, socket: join(dockerd.dir, "nothing-here.sock") } });
    expect(nowhere.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(nowhere.error?.hint).toContain("container.socket");
    const sandboxed = await open({ sandbox: "read-only", container: containerOf(BASH) });
    expect(sandboxed.error?.code).toBe("INVALID_ARGUMENT");
  }, 30_000);

  test("a container stopped under a session ends it, with the reason", async () => {
    await runContainer("ptyhub-doomed", "ptyhub-test/busybox:only");
    const r = await open({ name: "doomed", container: containerOf("ptyhub-doomed", { persist: false }) });
    expect(r.error).toBeNull();
    expect(await exec("doomed", "echo alive")).toMatchObject({ output: "alive", exit_code: 0 });
    await dockerd.dockerOk(["kill", "ptyhub-doomed"]);
    const ended = await waitFor(
      async () => ((await sessionInfo("doomed"))?.alive === false ? true : undefined),
      WAIT_MS,
      "the session in the killed container to end",
    );
    expect(ended).toBe(true);
    const after = await mcp.call("term_exec", { session: "doomed", command: "echo hi" });
    expect(after.error?.code).toBe("SESSION_EXITED");
    expect(after.error?.message).toContain("stopped");
    const reopen = await open({ container: containerOf("ptyhub-doomed") });
    expect(reopen.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(reopen.error?.message).toContain("not running");
  }, 60_000);

  test(
    "persistent by default: ptyhub is compiled, placed by content hash and owns the shell; exact codes and cwd",
    async () => {
      const r = await open({ name: "keep", container: containerOf(BASH) }, FIRST_PERSIST_OPEN_MS);
      expect(r.error).toBeNull();
      expect(r.data).toMatchObject({ kind: "container", target: `docker:${BASH}`, shell_integration: true });
      await checkExactness("keep");
      const placed = await dockerd.dockerOk(["exec", BASH, "sh", "-c", "ls /var/lib/ptyhub/bin/*/ptyhub"]);
      expect(placed).toMatch(/^\/var\/lib\/ptyhub\/bin\/[^/]+-[0-9a-f]{16}\/ptyhub$/);
      // term_close ends the shell in the daemon inside, not only this side's link to it.
      const shellPid = (await exec("keep", "echo $$")).output;
      const inside = () => dockerd.docker(["exec", BASH, "sh", "-c", `kill -0 ${shellPid}`]).then((x) => x.code === 0);
      expect(await inside()).toBe(true);
      expect((await mcp.call("term_close", { session: "keep" })).data.closed).toBe(true);
      await waitFor(async () => !(await inside()), WAIT_MS, `shell ${shellPid} to end inside ${BASH}`);
    },
    FIRST_PERSIST_OPEN_MS + WAIT_MS,
  );

  test("busybox-only and dash-only containers: persistent sessions with exact codes and cwd", async () => {
    for (const [session, container] of [
      ["bb", BUSYBOX],
      ["dash", DASH],
    ] as const) {
      const r = await open({ name: session, container: containerOf(container) }, FIRST_PERSIST_OPEN_MS);
      expect(r.error).toBeNull();
      expect(r.data.target).toBe(`docker:${container}`);
      await checkExactness(session);
      await mcp.call("term_close", { session });
    }
  }, 120_000);

  test("busybox-only with a plain exec: integration from the same setup as SSH", async () => {
    const r = await open({ name: "bbplain", container: containerOf(BUSYBOX, { persist: false }) });
    expect(r.error).toBeNull();
    await checkExactness("bbplain");
    await mcp.call("term_close", { session: "bbplain" });
  }, 60_000);

  test("kill -9 of the MCP server mid-command loses nothing: the session is listed and its output whole", async () => {
    const other = await startMcp();
    const r = await other.call("term_open", { name: "survivor", container: containerOf(BASH) }, { timeout: 120_000 });
    expect(r.error).toBeNull();
    const barrier = "/tmp/go-survivor";
    const command = `while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7))`;
    const running = await other.call("term_exec", { session: "survivor", command, timeout_ms: 300 });
    expect(running.data.status).toBe("running");
    await other.kill();
    await dockerd.dockerOk(["exec", BASH, "touch", barrier]);
    const next = await startMcp();
    try {
      expect((await next.call("term_list", {})).data.sessions.map((s: { session: string }) => s.session)).toContain(
        "survivor",
      );
      const history = async () => (await next.call("term_read", { session: "survivor", mode: "history" })).data.output;
      const text = await waitFor(
        async () => ((await history()).includes("released-42") ? history() : undefined),
        WAIT_MS,
        "the released command's output",
      );
      expect(text.split("\n").filter((l: string) => l.trim() === "released-42")).toHaveLength(1);
      const after = await next.call("term_exec", { session: "survivor", command: "echo after" });
      expect(after.data).toMatchObject({ status: "done", output: "after", exit_code: 0 });
      await next.call("term_close", { session: "survivor" });
    } finally {
      await next.close();
    }
  }, 180_000);

  test("a dropped engine connection mid-command loses nothing: ptyhub reattaches from the last byte", async () => {
    const r = await open({ name: "cut", container: containerOf(BASH) });
    expect(r.error).toBeNull();
    const barrier = "/tmp/go-cut";
    const command = `echo before; while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7)); (exit 3)`;
    const running = await mcp.call("term_exec", { session: "cut", command, timeout_ms: 300 });
    expect(running.data.status).toBe("running");
    // The bridges inside the container are this side's engine connections: kill -9 every one.
    const bridges = hostPids("/var/lib/ptyhub/bin/", "bridge");
    expect(bridges.length).toBeGreaterThan(0);
    for (const pid of bridges) process.kill(pid, "SIGKILL");
    await waitFor(() => bridges.every((pid) => !alive(pid)), WAIT_MS, "the bridges to die");
    await dockerd.dockerOk(["exec", BASH, "touch", barrier]);
    const history = async () => (await mcp.call("term_read", { session: "cut", mode: "history" })).data.output;
    const text = await waitFor(
      async () => ((await history()).includes("released-42") ? history() : undefined),
      WAIT_MS,
      "the released command's output after the reconnect",
    );
    const lines = text.split("\n").map((l: string) => l.trim());
    expect(lines.filter((l: string) => l === "before")).toHaveLength(1);
    expect(lines.filter((l: string) => l === "released-42")).toHaveLength(1);
    expect(await exec("cut", "echo $?")).toMatchObject({ output: "3", exit_code: 0 });
    await mcp.call("term_close", { session: "cut" });
  }, 120_000);

  test("term_list {containers: true}: the default engine's running containers, or a note if none answers", async () => {
    const listing = await startMcp({ env: { DOCKER_HOST: `unix://${dockerd.socket}` } });
    const nowhere = await startMcp({ env: { DOCKER_HOST: `unix://${join(dockerd.dir, "nothing-here.sock")}` } });
    try {
      const r = await listing.call("term_list", { containers: true });
      expect(r.error).toBeNull();
      const bash = (r.data.containers as Record<string, string>[]).find((c) => c.name === BASH);
      expect(bash).toMatchObject({ image: "ptyhub-test/bookworm:minbase", engine: "docker", state: "running" });
      const none = await nowhere.call("term_list", { containers: true });
      expect(none.error).toBeNull();
      expect(none.data.containers).toBeUndefined();
      expect(none.data.note).toContain("CONTAINER_UNAVAILABLE");
    } finally {
      await listing.close();
      await nowhere.close();
    }
  }, 60_000);

  test("where no ptyhub can be placed (a read-only root), a plain exec TTY, and the target says so", async () => {
    await dockerd.dockerOk([
      "run",
      "-d",
      "-i",
      "--read-only",
      "--network",
      "none",
      "--name",
      "ptyhub-readonly",
      "ptyhub-test/busybox:only",
      "/bin/sh",
    ]);
    const r = await open({ name: "ro", container: containerOf("ptyhub-readonly") });
    expect(r.error).toBeNull();
    expect(r.data.target).toStartWith("docker:ptyhub-readonly (plain exec, not persistent:");
    // No private temp dir for the setup on a read-only root either: the shell without integration.
    expect(
      (await mcp.call("term_send", { session: "ro", text: "echo ro-$((40+2))", until: "ro-42" })).data.matched,
    ).toBe("ro-42");
    await mcp.call("term_close", { session: "ro" });
  }, 60_000);

  test("dash-only, plain exec: no mktemp or cat for the setup, so no integration; still closed inside", async () => {
    const r = await open({ name: "dashplain", container: containerOf(DASH, { persist: false }) });
    expect(r.error).toBeNull();
    expect(r.data.shell_integration).toBe(false);
    const echoed = await mcp.call("term_send", { session: "dashplain", text: "echo d-$((40+2))", until: "d-42" });
    expect(echoed.data.matched).toBe("d-42");
    // Even there term_close ends the shell inside (its pid came first on the stream, not from a file).
    const said = await mcp.call("term_send", { session: "dashplain", text: "echo pid-$$", until: "pid-\\d+" });
    const shellPid = /pid-(\d+)/.exec(said.data.matched)![1]!;
    const inside = () =>
      dockerd.docker(["exec", DASH, "/bin/sh", "-c", `kill -0 ${shellPid}`]).then((x) => x.code === 0);
    expect(await inside()).toBe(true);
    await mcp.call("term_close", { session: "dashplain" });
    await waitFor(async () => !(await inside()), WAIT_MS, `shell ${shellPid} to end inside ${DASH}`);
  }, 60_000);

  test("a container stopped under a persistent session ends it: its daemon went with it", async () => {
    await runContainer("ptyhub-doomed2", "ptyhub-test/bookworm:minbase");
    const r = await open({ name: "doomed2", container: containerOf("ptyhub-doomed2") });
    expect(r.error).toBeNull();
    expect(await exec("doomed2", "echo alive")).toMatchObject({ output: "alive", exit_code: 0 });
    await dockerd.dockerOk(["kill", "ptyhub-doomed2"]);
    await waitFor(
      async () => ((await sessionInfo("doomed2"))?.alive === false ? true : undefined),
      WAIT_MS,
      "the persistent session in the killed container to end",
    );
    const after = await mcp.call("term_exec", { session: "doomed2", command: "echo hi" });
    expect(after.error?.code).toBe("SESSION_EXITED");
  }, 60_000);

  test("over tcp://: the engine connection cut mid-command, ptyhub reconnects and nothing is lost", async () => {
    const proxy = startProxy({ unix: dockerd.socket }, { halfClose: true });
    try {
      const overTcp = { name: BASH, socket: `tcp://127.0.0.1:${proxy.port}` };
      const r = await open({ name: "tcp", container: overTcp });
      expect(r.error).toBeNull();
      // bash found as root's login shell through execs over tcp (their stdin's end is a half-close).
      expect(r.data.shell_integration).toBe(true);
      expect(await exec("tcp", "echo over-tcp")).toMatchObject({ output: "over-tcp", exit_code: 0 });
      const barrier = "/tmp/go-tcp";
      const command = `while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7)); (exit 5)`;
      const running = await mcp.call("term_exec", { session: "tcp", command, timeout_ms: 300 });
      expect(running.data.status).toBe("running");
      proxy.block(true);
      proxy.cut();
      await waitFor(async () => (await sessionInfo("tcp"))?.state === "reconnecting", WAIT_MS, "tcp to reconnect");
      await dockerd.dockerOk(["exec", BASH, "touch", barrier]);
      proxy.block(false);
      const history = async () => (await mcp.call("term_read", { session: "tcp", mode: "history" })).data.output;
      const text = await waitFor(
        async () => ((await history()).includes("released-42") ? history() : undefined),
        WAIT_MS,
        "the released command's output after the reconnect",
      );
      expect(text.split("\n").filter((l: string) => l.trim() === "released-42")).toHaveLength(1);
      expect(await exec("tcp", "echo $?")).toMatchObject({ output: "5", exit_code: 0 });
      await mcp.call("term_close", { session: "tcp" });
    } finally {
      proxy.stop();
    }
  }, 120_000);

  test("user and workdir: a user whose login shell is nologin still gets a POSIX shell, where asked", async () => {
    for (const persist of [false, true]) {
      const session = `nobody-${persist}`;
      const params = containerOf(BASH, { persist, user: "nobody", workdir: "/tmp" });
      const r = await open({ name: session, container: params });
      expect(r.error).toBeNull();
      // Persistent too: the daemon of a user without a home keeps its state in a private one in /tmp.
      expect(r.data.target).toBe(persist ? `docker:${BASH}` : `docker:${BASH} (plain exec)`);
      expect(await exec(session, "id -un")).toMatchObject({ output: "nobody", exit_code: 0 });
      expect(await exec(session, "pwd")).toMatchObject({ output: "/tmp", exit_code: 0 });
      expect(await exec(session, "(exit 4)")).toMatchObject({ exit_code: 4 });
      await mcp.call("term_close", { session });
    }
  }, 120_000);

  test("a plain exec whose engine connection drops ends, and its shell inside too (no re-attach)", async () => {
    const proxy = startProxy({ unix: dockerd.socket }, { halfClose: true });
    try {
      const overTcp = { name: BASH, socket: `tcp://127.0.0.1:${proxy.port}`, persist: false };
      const r = await open({ name: "dropped", container: overTcp });
      expect(r.error).toBeNull();
      const shellPid = (await exec("dropped", "echo $$")).output;
      const inside = () => dockerd.docker(["exec", BASH, "sh", "-c", `kill -0 ${shellPid}`]).then((x) => x.code === 0);
      expect(await inside()).toBe(true);
      proxy.cut();
      await waitFor(
        async () => ((await sessionInfo("dropped"))?.alive === false ? true : undefined),
        WAIT_MS,
        "the plain exec session to end after the cut",
      );
      const after = await mcp.call("term_exec", { session: "dropped", command: "echo hi" });
      expect(after.error?.message).toContain("engine connection dropped");
      await waitFor(async () => !(await inside()), WAIT_MS, `shell ${shellPid} to end inside ${BASH}`);
    } finally {
      proxy.stop();
    }
  }, 60_000);
});
