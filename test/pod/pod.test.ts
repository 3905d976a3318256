/**
 * Pod sessions end to end: the real MCP server (from source, over stdio) opens `pod` sessions
 * through `pods/exec` with the official Kubernetes client. Here the API server is the stand-in
 * (test/helpers/kube-standin.ts), whose execs are real Docker execs in a private dockerd, so the
 * terminal is real and only the API layer is stood in; in the GitHub workflow's kind job
 * (PTYHUB_TEST_KUBECONFIG) the same tests run against a real cluster (test/helpers/pod-world.ts).
 * Persistent sessions run a ptyhub compiled from these sources inside the pod's container,
 * placed there by ptyhub itself over an exec's stdin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { podTestsEnabled, REAL_KUBECONFIG, startPodWorld, type PodWorld } from "../helpers/pod-world.ts";
import { run } from "../ssh/sshd.ts";
import { waitFor } from "../helpers/wait.ts";

const enabled = podTestsEnabled();

/** Set-up: dockerd and the image import here (debootstrap first on a machine without the cache); a pull there. */
const SETUP_MS = 400_000;
/** The first persistent open compiles ptyhub from source (bun build --compile) and uploads ~100 MB. */
const FIRST_PERSIST_OPEN_MS = 300_000;
const WAIT_MS = 30_000;

let world: PodWorld;
let mcp: StdioMcp;

function podOf(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: world.pod, kubeconfig: world.kubeconfig, ...extra };
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

/** Resize reaches stty, ctrl+c interrupts, and term_close ends the shell inside the pod. */
async function checkTerminal(session: string): Promise<void> {
  expect((await exec(session, "stty size")).output).toBe("30 100");
  await mcp.call("term_resize", { session, cols: 90, rows: 25 });
  // The resize channel's message is applied beside the keystrokes, not in order with them (the
  // stand-in's engine call, a real kubelet's too): the new size shows within moments.
  await waitFor(async () => (await exec(session, "stty size")).output === "25 90", WAIT_MS, "stty to see the new size");
  const sleeping = await mcp.call("term_exec", { session, command: "sleep 30", timeout_ms: 300 });
  expect(sleeping.data.status).toBe("running");
  await mcp.call("term_send", { session, keys: ["ctrl+c"], wait_ms: 1000 });
  expect(await exec(session, "echo back")).toMatchObject({ status: "done", output: "back", exit_code: 0 });
  const shellPid = (await exec(session, "echo $$")).output;
  const inside = async () => (await world.inside(`kill -0 ${shellPid}`)).code === 0;
  expect(await inside()).toBe(true);
  expect((await mcp.call("term_close", { session })).data.closed).toBe(true);
  await waitFor(async () => !(await inside()), WAIT_MS, `shell ${shellPid} to end inside the pod`);
}

describe.skipIf(!enabled)("pod sessions", () => {
  beforeAll(async () => {
    world = await startPodWorld();
    mcp = await startMcp();
  }, SETUP_MS);

  afterAll(async () => {
    await mcp?.close();
    await run(["bun", CLI, "daemon", "--stop"]);
    await world?.stop();
  }, 60_000);

  test(
    "persistent by default: ptyhub placed inside by content hash owns the shell; exact codes, cwd, resize, " +
      "ctrl+c, term_close, term_list",
    async () => {
      const r = await open({ name: "keep", cols: 100, rows: 30, pod: podOf() }, FIRST_PERSIST_OPEN_MS);
      expect(r.error).toBeNull();
      const target = `pod:${world.namespace}/${world.pod}/app`;
      expect(r.data).toMatchObject({ kind: "pod", target, shell_integration: true });
      expect((await sessionInfo("keep"))?.kind).toBe("pod");
      await checkExactness("keep");
      expect((await exec("keep", "echo $BASH_VERSION")).output).toMatch(/^5\./);
      const placed = await world.inside("ls /var/lib/ptyhub/bin/*/ptyhub");
      expect(placed.out.trim()).toMatch(/^\/var\/lib\/ptyhub\/bin\/[^/]+-[0-9a-f]{16}\/ptyhub$/);
      await checkTerminal("keep");
      expect(await sessionInfo("keep")).toBeUndefined();
    },
    FIRST_PERSIST_OPEN_MS + WAIT_MS * 2,
  );

  test("plain exec (persist: false): exact codes and cwd, resize, ctrl+c, term_close; the target says so", async () => {
    const r = await open({ name: "plain", cols: 100, rows: 30, pod: podOf({ persist: false }) });
    expect(r.error).toBeNull();
    const target = `pod:${world.namespace}/${world.pod}/app (plain exec)`;
    expect(r.data).toMatchObject({ kind: "pod", target, shell_integration: true });
    await checkExactness("plain");
    await checkTerminal("plain");
  }, 90_000);

  test(
    "kill -9 of the MCP server mid-command loses nothing: the session is listed and its output whole",
    async () => {
      const other = await startMcp();
      const r = await other.call("term_open", { name: "survivor", pod: podOf() }, { timeout: FIRST_PERSIST_OPEN_MS });
      expect(r.error).toBeNull();
      const barrier = "/tmp/go-survivor";
      const command = `while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7))`;
      const running = await other.call("term_exec", { session: "survivor", command, timeout_ms: 300 });
      expect(running.data.status).toBe("running");
      await other.kill();
      expect((await world.inside(`touch ${barrier}`)).code).toBe(0);
      const next = await startMcp();
      try {
        const listed = (await next.call("term_list", {})).data.sessions as Record<string, any>[];
        expect(listed.find((s) => s.session === "survivor")).toMatchObject({ kind: "pod", alive: true });
        const history = async () =>
          (await next.call("term_read", { session: "survivor", mode: "history" })).data.output;
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
    },
    FIRST_PERSIST_OPEN_MS + WAIT_MS * 2,
  );

  test("missing or forbidden pod, no kubeconfig or container: CONTAINER_UNAVAILABLE; sandbox refused", async () => {
    const missing = await open({ pod: podOf({ name: "ptyhub-no-such-pod" }) });
    expect(missing.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(missing.error?.message).toContain("no such pod");
    expect(missing.error?.hint).toContain("kubectl get pods");
    const f = world.forbidden;
    const forbidden = await open({ pod: { name: f.pod, kubeconfig: f.kubeconfig } });
    expect(forbidden.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(forbidden.error?.message).toContain("forbidden");
    expect(forbidden.error?.hint).toContain("RBAC");
    if (world.forbiddenPod !== null) {
      const pod = await open({ pod: podOf({ name: world.forbiddenPod }) });
      expect(pod.error?.code).toBe("CONTAINER_UNAVAILABLE");
      expect(pod.error?.message).toContain(`pods "${world.forbiddenPod}" is forbidden`);
    }
    const noConfig = await open({ pod: podOf({ kubeconfig: `${world.kubeconfig}.absent` }) });
    expect(noConfig.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(noConfig.error?.hint).toContain("KUBECONFIG");
    const noContainer = await open({ pod: podOf({ container: "sidecar" }) });
    expect(noContainer.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(noContainer.error?.hint).toContain("app");
    const sandboxed = await open({ sandbox: "read-only", pod: podOf() });
    expect(sandboxed.error?.code).toBe("INVALID_ARGUMENT");
    const both = await open({ pod: podOf(), container: { name: "x" } });
    expect(both.error?.code).toBe("INVALID_ARGUMENT");
    // None of these left a session behind.
    const names = ((await mcp.call("term_list", {})).data.sessions as { kind: string }[]).map((s) => s.kind);
    expect(names.filter((k) => k === "pod")).toHaveLength(0);
  }, 60_000);

  // Only the stand-in can cut every exec's connection at once; a real cluster's job runs the rest.
  test.skipIf(REAL_KUBECONFIG !== undefined)(
    "every API connection cut mid-command loses nothing: ptyhub reattaches from the last byte",
    async () => {
      const standin = world.standin;
      if (!standin) throw new Error("the cut test needs the stand-in");
      const r = await open({ name: "cut", pod: podOf() });
      expect(r.error).toBeNull();
      const barrier = "/tmp/go-cut";
      const command = `echo before; while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7)); (exit 3)`;
      const running = await mcp.call("term_exec", { session: "cut", command, timeout_ms: 300 });
      expect(running.data.status).toBe("running");
      const bridges = () => standin.execs.filter((argv) => argv.includes("bridge")).length;
      const before = bridges();
      standin.cut();
      expect((await world.inside(`touch ${barrier}`)).code).toBe(0);
      const history = async () => (await mcp.call("term_read", { session: "cut", mode: "history" })).data.output;
      const text = await waitFor(
        async () => ((await history()).includes("released-42") ? history() : undefined),
        WAIT_MS,
        "the released command's output after the reconnect",
      );
      const lines = text.split("\n").map((l: string) => l.trim());
      expect(lines.filter((l: string) => l === "before")).toHaveLength(1);
      expect(lines.filter((l: string) => l === "released-42")).toHaveLength(1);
      // It came back through a new bridge exec, not the old connection.
      expect(bridges()).toBeGreaterThan(before);
      expect(await exec("cut", "echo $?")).toMatchObject({ output: "3", exit_code: 0 });
      await mcp.call("term_close", { session: "cut" });
    },
    90_000,
  );

  test.skipIf(REAL_KUBECONFIG !== undefined)(
    "where no ptyhub can be placed (a read-only root), a plain exec TTY, and the target says so",
    async () => {
      const r = await open({ name: "ro", pod: podOf({ name: world.readOnlyPod }) });
      expect(r.error).toBeNull();
      expect(r.data.target).toStartWith(`pod:${world.namespace}/${world.readOnlyPod}/app (plain exec, not persistent:`);
      expect(r.data.target).toContain("no writable place");
      const echoed = await mcp.call("term_send", { session: "ro", text: "echo ro-$((40+2))", until: "ro-42" });
      expect(echoed.data.matched).toBe("ro-42");
      await mcp.call("term_close", { session: "ro" });
    },
    60_000,
  );

  test(
    "a pod deleted under a persistent session ends it: its daemon went with it",
    async () => {
      const doomed = await world.extraPod("ptyhub-doomed");
      let deleted = false;
      try {
        const r = await open({ name: "doomed", pod: podOf({ name: "ptyhub-doomed" }) }, FIRST_PERSIST_OPEN_MS);
        expect(r.error).toBeNull();
        expect(await exec("doomed", "echo alive")).toMatchObject({ output: "alive", exit_code: 0 });
        await doomed.delete();
        deleted = true;
        await waitFor(
          async () => ((await sessionInfo("doomed"))?.alive === false ? true : undefined),
          WAIT_MS * 4,
          "the session in the deleted pod to end",
        );
        const after = await mcp.call("term_exec", { session: "doomed", command: "echo hi" });
        expect(after.error?.code).toBe("SESSION_EXITED");
        const reopen = await open({ pod: podOf({ name: "ptyhub-doomed" }) });
        expect(reopen.error?.code).toBe("CONTAINER_UNAVAILABLE");
      } finally {
        if (!deleted) await doomed.delete();
      }
    },
    FIRST_PERSIST_OPEN_MS + WAIT_MS * 5,
  );
});
