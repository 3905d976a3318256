/**
 * The guard judges a container session against the container's own files (#34 item 4): whether a
 * work tree there has uncommitted changes, which branch it has checked out. The MCP server runs in
 * this repository (a git work tree of this machine), so an answer taken from the host would show.
 *
 * The container runs the bash minbase image with this machine's git copied in (both Debian
 * bookworm; git needs only libraries minbase has). The human declines every guard question.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { containerTestsEnabled, importBashImage } from "../helpers/container-images.ts";
import { startDockerd, type Dockerd } from "../helpers/dockerd.ts";
import { CLI, startMcp, type StdioMcp } from "../helpers/mcp-client.ts";
import { run } from "../ssh/sshd.ts";

const enabled = containerTestsEnabled();
const SETUP_MS = 240_000;
const WAIT_MS = 30_000;
const NAME = "ptyhub-guard-files";
const GIT = "/usr/bin/git";
const REPO = "/work/repo";

let dockerd: Dockerd;
let mcp: StdioMcp;

/** Runs `script` in the container as root, through the CLI (the scene, not ptyhub). */
function inside(script: string): Promise<string> {
  return dockerd.dockerOk(["exec", NAME, "/bin/sh", "-c", script]);
}

async function exec(command: string) {
  return mcp.call("term_exec", { session: "g", command }, { timeout: WAIT_MS });
}

describe.skipIf(!enabled)("the guard in a container session", () => {
  beforeAll(async () => {
    dockerd = await startDockerd();
    const image = await importBashImage(dockerd);
    await dockerd.dockerOk(["run", "-d", "-i", "--network", "none", "--name", NAME, image, "/bin/sh"]);
    await dockerd.dockerOk(["cp", GIT, `${NAME}:${GIT}`]);
    await inside(
      [
        `mkdir -p ${REPO} && cd ${REPO} && git init -q -b main`,
        "git config user.email t@example.com && git config user.name t",
        "echo one > a && git add a && git commit -qm one",
      ].join(" && "),
    );
    mcp = await startMcp({
      elicit: () => ({ action: "accept" as const, content: { allow: false } }),
    });
    const r = await mcp.call(
      "term_open",
      { name: "g", cwd: REPO, container: { name: NAME, socket: dockerd.socket, persist: false } },
      { timeout: WAIT_MS * 2 },
    );
    if (r.error) throw new Error(`term_open: ${r.text}`);
  }, SETUP_MS);

  afterAll(async () => {
    await mcp?.call("term_close", { session: "g" }).catch(() => undefined);
    await mcp?.close();
    await run(["bun", CLI, "daemon", "--stop"]);
    await dockerd?.stop();
  }, 60_000);

  test("uncommitted work in the container's tree is counted there, and a clean tree lets reset run", async () => {
    await inside(`cd ${REPO} && echo two > a && echo new > b`);
    const dirty = await exec("git reset --hard");
    expect(dirty.error?.code).toBe("BLOCKED_BY_GUARD");
    // The container's two changed paths, in its own directory: not "could not be checked".
    expect(dirty.text).toContain(`uncommitted work: 2 changed or untracked paths in ${REPO}`);
    expect(await inside(`cat ${REPO}/a`)).toBe("two");

    await inside(`cd ${REPO} && git add -A && git commit -qm two`);
    const clean = await exec("git reset --hard");
    expect(clean.error).toBeNull();
    expect(clean.data).toMatchObject({ status: "done", exit_code: 0 });
  }, 60_000);

  test("the branch checked out in the container decides whether a force push rewrites a shared one", async () => {
    const onMain = await exec("git push --force");
    expect(onMain.error?.code).toBe("BLOCKED_BY_GUARD");
    expect(onMain.text).toContain("rewrites the shared branch main");

    await inside(`cd ${REPO} && git checkout -q -b topic`);
    // Not asked about: the push itself runs (and fails, as there is no remote there).
    const onTopic = await exec("git push --force");
    expect(onTopic.error).toBeNull();
    expect(onTopic.data.exit_code).not.toBe(0);
  }, 60_000);

  test("a directory the container lacks git for stays unknown, so the human is asked", async () => {
    await inside(`mv ${GIT} ${GIT}.away`);
    try {
      const r = await exec("git reset --hard");
      expect(r.error?.code).toBe("BLOCKED_BY_GUARD");
      expect(r.text).toContain("whether there is any could not be checked");
    } finally {
      await inside(`mv ${GIT}.away ${GIT}`);
    }
  }, 60_000);
});
