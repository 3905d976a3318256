/**
 * ptyhub itself in a container: deploy/Dockerfile built against a private dockerd
 * (test/helpers/dockerd.ts) from the registry-free debootstrap base, with the linux-x64 binary that
 * `bun run build` makes, then run and driven over HTTP by the MCP SDK client, as a deployment would
 * be. The container is killed and replaced by a new one on the same state volume, as Kubernetes
 * replaces a pod on its claim: the state (the generated token file, the audit trail) persists, the
 * sessions (the daemon's) do not.
 *
 * The private engine has no bridge, so the container shares the host's network (`--network host`);
 * it is told to listen on 127.0.0.1 (the image's default, 0.0.0.0, would open the port on the test
 * machine's interfaces) on a free ephemeral port. Everything else is the image's own: entry point,
 * user, environment, volume and health check.
 *
 * Needs what test/container/container.test.ts needs (root, dockerd, the docker CLI, debootstrap or
 * the cached image); PTYHUB_REQUIRE_DOCKER=1 (CI) makes their absence a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { HEALTH_PATH } from "../../src/mcp/http-health.ts";
import { findTarget, stagingDirName, binaryName } from "../../scripts/release-targets.ts";
import { containerTestsEnabled, importBashImage } from "../helpers/container-images.ts";
import { DOCKER_CLI, startDockerd, type Dockerd } from "../helpers/dockerd.ts";
import { connectHttp, type McpClient } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { run, scratchDir } from "../ssh/sshd.ts";
import { BUILD_TIMEOUT_MS, REPO_ROOT, targetBuild, VERSION } from "../ship/helpers.ts";

const enabled = containerTestsEnabled();

/** The binary's build, debootstrap on a machine without the cached base, the import, the image build. */
const SETUP_MS = BUILD_TIMEOUT_MS + 240_000;
/** The image's health check runs every 10 s after the container starts; a loaded machine may miss one. */
const HEALTHY_MS = 90_000;
const TEST_MS = HEALTHY_MS + 60_000;

const IMAGE = "ptyhub-test/ptyhub:image";
const VOLUME = "ptyhub-image-state";
/** Where the Dockerfile keeps the state (XDG_STATE_HOME) and so where ptyhub's own files land. */
const STATE_MOUNT = "/var/lib/ptyhub";
const TOKEN_FILE = `${STATE_MOUNT}/ptyhub/http-token`;
const PTYHUB_UID = "10001";
const SESSION = "web";
/** A token given through the environment, as the Kubernetes manifest gives it from a Secret. */
const ENV_TOKEN = "k8s-secret-token-0123456789abcdefghijklmnopqrstuvwxyz";

const LINUX_X64 = findTarget("bun-linux-x64");

let dockerd: Dockerd;
const clients: McpClient[] = [];

/** A port free on loopback now (the server takes it moments later; nothing else here races for it). */
function freeLoopbackPort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/**
 * The build context as a checkout has it after `bun run build`: dist/<staging dir>/ptyhub, the
 * deploy files and the .dockerignore, so the documented `docker build -f deploy/Dockerfile .` is
 * what runs (the test's build lives outside the checkout, in the shared ship-test build directory).
 */
async function buildContext(): Promise<string> {
  if (!LINUX_X64) throw new Error("no bun-linux-x64 release target");
  const build = await targetBuild(LINUX_X64);
  const ctx = scratchDir("image-context-");
  const staging = join(ctx, "dist", stagingDirName(VERSION, LINUX_X64));
  mkdirSync(staging, { recursive: true });
  mkdirSync(join(ctx, "deploy"));
  copyFileSync(build.binaryPath, join(staging, binaryName(LINUX_X64)));
  for (const file of [".dockerignore", "deploy/Dockerfile", "deploy/healthcheck.sh"])
    copyFileSync(join(REPO_ROOT, file), join(ctx, file));
  return ctx;
}

async function buildImage(base: string): Promise<void> {
  const ctx = await buildContext();
  const argv = [DOCKER_CLI, "-H", `unix://${dockerd.socket}`, "build", "-f", join(ctx, "deploy", "Dockerfile")];
  // --network none: the private engine has no bridge for RUN steps, and the build needs no network.
  argv.push("--network", "none", "--build-arg", `BASE=${base}`, "-t", IMAGE, ctx);
  // The classic builder: Debian's engine has no buildx client plugin beside it.
  const r = await run(argv, { env: { DOCKER_BUILDKIT: "0" } });
  if (r.code !== 0) throw new Error(`docker build failed (${r.code}):\n${r.out.slice(-3000)}\n${r.err.slice(-3000)}`);
}

/** Runs the image as `name` on the state volume; resolves once Docker calls it healthy. */
async function startServer(name: string, env: Record<string, string> = {}): Promise<string> {
  const port = freeLoopbackPort();
  const envArgs = Object.entries({ ...env, PTYHUB_HTTP_PORT: String(port) }).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  await dockerd.dockerOk([
    "run",
    "-d",
    "--init",
    "--name",
    name,
    "--network",
    "host",
    "-v",
    `${VOLUME}:${STATE_MOUNT}`,
    ...envArgs,
    IMAGE,
    "serve",
    "--http",
    "--host",
    "127.0.0.1",
  ]);
  await waitFor(
    async () => {
      const [state, health] = (
        await dockerd.dockerOk(["inspect", "--format", "{{.State.Status}} {{.State.Health.Status}}", name])
      ).split(" ");
      if (state !== "running") throw new Error(`${name} is ${state}:\n${(await dockerd.docker(["logs", name])).err}`);
      return health === "healthy";
    },
    HEALTHY_MS,
    async () => `${name} to be healthy; logs:\n${(await dockerd.docker(["logs", name])).err.slice(-2000)}`,
  );
  return `http://127.0.0.1:${port}/mcp`;
}

async function client(url: string, token: string): Promise<McpClient> {
  const c = await connectHttp(url, token, { clientName: "image-test" });
  clients.push(c);
  return c;
}

/** What `docker exec` prints, as the image's user. */
async function inside(name: string, ...argv: string[]): Promise<string> {
  return dockerd.dockerOk(["exec", name, ...argv]);
}

async function postStatus(url: string, token: string): Promise<number> {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await r.body?.cancel();
  return r.status;
}

describe.skipIf(!enabled)("ptyhub serve --http in its container image", () => {
  let firstUrl = "";
  let fileToken = "";

  beforeAll(async () => {
    dockerd = await startDockerd();
    await buildImage(await importBashImage(dockerd));
  }, SETUP_MS);

  afterAll(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    // Removes every container first, then ends the engine and its children by pid.
    await dockerd?.stop();
  }, 60_000);

  test("the image: the binary, a non-root user, state on a volume, the health check", async () => {
    const config = JSON.parse(await dockerd.dockerOk(["image", "inspect", "--format", "{{json .Config}}", IMAGE]));
    expect(config.User).toBe("ptyhub");
    expect(Object.keys(config.Volumes ?? {})).toEqual([STATE_MOUNT]);
    expect(config.Env).toContain(`XDG_STATE_HOME=${STATE_MOUNT}`);
    expect(config.Entrypoint).toEqual(["/usr/local/bin/ptyhub"]);
    expect(config.Cmd).toEqual(["serve", "--http", "--host", "0.0.0.0"]);
    expect(config.Healthcheck.Test).toEqual(["CMD", "/usr/local/bin/ptyhub-healthcheck"]);
    const version = await dockerd.dockerOk(["run", "--rm", "--network", "none", IMAGE, "--version"]);
    expect(version).toContain(VERSION);
  });

  test(
    "healthy, then driven over HTTP with the token it generated on the volume",
    async () => {
      firstUrl = await startServer("ptyhub-1");
      expect(await inside("ptyhub-1", "id", "-u")).toBe(PTYHUB_UID);
      expect((await dockerd.docker(["logs", "ptyhub-1"])).out).toContain(`token in ${TOKEN_FILE}> (generated now)`);
      fileToken = await inside("ptyhub-1", "cat", TOKEN_FILE);
      expect(fileToken.length).toBeGreaterThanOrEqual(32);

      const health = await fetch(new URL(HEALTH_PATH, firstUrl));
      expect(health.status).toBe(200);
      expect(await health.text()).toBe("ok");
      expect(await postStatus(firstUrl, "wrong-token")).toBe(401);

      const c = await client(firstUrl, fileToken);
      expect(c.client.getServerVersion()?.name).toBe("ptyhub");
      expect((await c.call("term_open", { name: SESSION })).error).toBeNull();
      expect(await c.ok("term_exec", { session: SESSION, command: "echo hi" })).toMatchObject({
        status: "done",
        output: "hi",
        exit_code: 0,
      });
      expect((await c.ok("term_exec", { session: SESSION, command: "whoami" })).output).toBe("ptyhub");
    },
    TEST_MS,
  );

  test(
    "killed and replaced on the same volume: token file and audit trail kept, sessions gone",
    async () => {
      expect(fileToken).not.toBe("");
      await dockerd.dockerOk(["kill", "ptyhub-1"]);
      await dockerd.dockerOk(["rm", "ptyhub-1"]);
      expect(await postStatus(firstUrl, fileToken).catch(() => "refused")).toBe("refused");

      // The replacement gets its token from the environment, as the Kubernetes manifest's Secret gives it.
      const url = await startServer("ptyhub-2", { PTYHUB_HTTP_TOKEN: ENV_TOKEN });
      expect((await dockerd.docker(["logs", "ptyhub-2"])).out).toContain(
        "auth: Authorization: Bearer $PTYHUB_HTTP_TOKEN",
      );
      expect(await inside("ptyhub-2", "cat", TOKEN_FILE)).toBe(fileToken);
      // The environment's token wins over the file's.
      expect(await postStatus(url, fileToken)).toBe(401);

      const trail = await inside("ptyhub-2", "/usr/local/bin/ptyhub", "log", SESSION, "--json");
      const entries = trail.split("\n").map((line) => JSON.parse(line));
      expect(entries).toContainEqual(expect.objectContaining({ event: "typed", via: "exec", text: "echo hi" }));
      expect(entries).toContainEqual(expect.objectContaining({ event: "command_end", exit_code: 0 }));

      const c = await client(url, ENV_TOKEN);
      const listed = (await c.ok("term_list", {})).sessions as { session: string }[];
      expect(listed.map((s) => s.session)).not.toContain(SESSION);
      expect(await c.ok("term_exec", { command: "echo again" })).toMatchObject({ output: "again", exit_code: 0 });
    },
    TEST_MS,
  );
});
