/**
 * Container sessions through Podman's Docker-compatible API (`engine: "podman"`), end to end: the
 * real MCP server (from source, over stdio) against a private `podman system service`
 * (test/helpers/podman.ts) running the bash minbase image with `--network none`. Both ways in: a
 * plain exec TTY, and the persistent one (ptyhub placed inside through the archive API, reached
 * through `ptyhub bridge`), which must survive a kill -9 of the MCP server mid-command.
 *
 * Needs root, podman, and the minbase image (cached, or debootstrap): without them the file skips,
 * unless PTYHUB_REQUIRE_DOCKER=1 (CI sets it and installs podman), when that is a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASH_IMAGE, containerTestsEnabled, minbaseTarball } from "../helpers/container-images.ts";
import { havePodman, PODMAN_ULIMITS, startPodman, type Podman } from "../helpers/podman.ts";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { run } from "../ssh/sshd.ts";
import { waitFor } from "../helpers/wait.ts";

if (!havePodman && process.env.PTYHUB_REQUIRE_DOCKER === "1") {
  throw new Error("PTYHUB_REQUIRE_DOCKER=1 but podman is missing (apt-get install podman)");
}
const enabled = havePodman && containerTestsEnabled();

/** Set-up: debootstrap on a machine without the cached image, then the import (vfs copies it). */
const SETUP_MS = 240_000;
/** The first persistent open may compile ptyhub from source (bun build --compile) and place ~100 MB. */
const FIRST_PERSIST_OPEN_MS = 240_000;
const WAIT_MS = 30_000;
const NAME = "ptyhub-podman";

let podman: Podman;
let mcp: StdioMcp;

function container(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: NAME, engine: "podman", socket: podman.socket, ...extra };
}

async function exec(client: StdioMcp, session: string, command: string) {
  const r = await client.call("term_exec", { session, command });
  if (r.isError) throw new Error(`term_exec ${command}: ${r.text}`);
  return r.data;
}

describe.skipIf(!enabled)("podman container sessions", () => {
  beforeAll(async () => {
    podman = await startPodman();
    await podman.podmanOk(["import", await minbaseTarball(), BASH_IMAGE]);
    await podman.podmanOk([
      "run",
      "-d",
      "-i",
      "--network",
      "none",
      ...PODMAN_ULIMITS,
      "--name",
      NAME,
      BASH_IMAGE,
      "/bin/sh",
    ]);
    mcp = await startMcp();
  }, SETUP_MS);

  afterAll(async () => {
    await mcp?.close();
    await run(["bun", CLI, "daemon", "--stop"]);
    await podman?.stop();
  }, 60_000);

  test("plain exec: the podman target, exact exit codes and cwd, resize", async () => {
    const r = await mcp.call("term_open", { name: "pplain", container: container({ persist: false }) });
    expect(r.error).toBeNull();
    expect(r.data).toMatchObject({ kind: "container", target: `podman:${NAME} (plain exec)`, shell_integration: true });
    expect(await exec(mcp, "pplain", "(exit 7)")).toMatchObject({ status: "done", exit_code: 7 });
    expect(await exec(mcp, "pplain", "cd /tmp && pwd")).toMatchObject({ output: "/tmp", exit_code: 0, cwd: "/tmp" });
    await mcp.call("term_resize", { session: "pplain", cols: 91, rows: 27 });
    expect((await exec(mcp, "pplain", "stty size")).output).toBe("27 91");
    await mcp.call("term_close", { session: "pplain" });
  }, 60_000);

  test(
    "persistent: kill -9 of the MCP server mid-command loses nothing",
    async () => {
      const first = await startMcp();
      const opened = await first.call(
        "term_open",
        { name: "psurvivor", container: container() },
        { timeout: FIRST_PERSIST_OPEN_MS },
      );
      expect(opened.error).toBeNull();
      expect(opened.data.target).toBe(`podman:${NAME}`);
      const barrier = "/tmp/go-podman";
      const command = `while [ ! -e ${barrier} ]; do sleep 0.05; done; echo released-$((6*7)); (exit 4)`;
      const running = await first.call("term_exec", { session: "psurvivor", command, timeout_ms: 300 });
      expect(running.data.status).toBe("running");
      await first.kill();
      await podman.podmanOk(["exec", NAME, "touch", barrier]);
      const next = await startMcp();
      try {
        const history = async () =>
          (await next.call("term_read", { session: "psurvivor", mode: "history" })).data.output;
        const text = await waitFor(
          async () => ((await history()).includes("released-42") ? history() : undefined),
          WAIT_MS,
          "the released command's output",
        );
        expect(text.split("\n").filter((l: string) => l.trim() === "released-42")).toHaveLength(1);
        expect(await exec(next, "psurvivor", "echo $?")).toMatchObject({ output: "4", exit_code: 0 });
        await next.call("term_close", { session: "psurvivor" });
      } finally {
        await next.close();
      }
    },
    FIRST_PERSIST_OPEN_MS + 60_000,
  );

  test("a container podman stopped is CONTAINER_UNAVAILABLE with a hint", async () => {
    await podman.podmanOk([
      "run",
      "-d",
      "-i",
      "--network",
      "none",
      ...PODMAN_ULIMITS,
      "--name",
      "pm-stopped",
      BASH_IMAGE,
      "/bin/sh",
    ]);
    await podman.podmanOk(["stop", "-t", "0", "pm-stopped"]);
    const r = await mcp.call("term_open", { name: "pstopped", container: container({ name: "pm-stopped" }) });
    expect(r.error?.code).toBe("CONTAINER_UNAVAILABLE");
    expect(r.error?.hint).toBeTruthy();
  }, 60_000);
});
