/**
 * The release, rehearsed with real parts: the assets come from scripts/release-assets.ts (the
 * release workflow's own command, for the host's target only), the GitHub Release is a file server
 * on 127.0.0.1 laid out like GitHub's download URLs, and npm is a real registry (verdaccio) on
 * 127.0.0.1 that the packages are published to by scripts/npm-publish.ts (the workflow's too).
 * Then the card's ways in, each as a user runs it: `curl … install.sh | sh`, a release download
 * checked with `sha256sum -c`, `bunx ptyhub`, `npx ptyhub` and `npm i -g ptyhub`; every installed
 * ptyhub must answer an MCP `initialize` and a `term_exec`, and must leave no process behind.
 *
 * Needs node, npm, curl and sha256sum (Linux: the process tree is read from /proc); verdaccio is
 * installed from the npm registry into the test's own directory. Without them the file skips,
 * unless PTYHUB_REQUIRE_RELEASE_REHEARSAL=1 (.ci/run sets it), when a missing tool is a failure.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Server } from "bun";
import { GITHUB_REPO, archiveName, hostTarget, npmPackageName, stagingDirName } from "../../scripts/release-targets.ts";
import { startMcp } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { descendants, killQuietly } from "../ssh/sshd.ts";
import { REPO_ROOT, VERSION, isolatedEnv, makeTempDir, runProcess, sha256File } from "./helpers.ts";
import { installVerdaccio, startVerdaccio, type Verdaccio } from "./verdaccio.ts";

const tools = { node: Bun.which("node"), npm: Bun.which("npm"), npx: Bun.which("npx"), curl: Bun.which("curl") };
const missing = [
  ...Object.entries(tools).flatMap(([name, path]) => (path === null ? [name] : [])),
  ...(Bun.which("sha256sum") === null ? ["sha256sum"] : []),
  ...(process.platform === "linux" ? [] : ["Linux (/proc)"]),
];
const available = missing.length === 0;
if (!available && process.env.PTYHUB_REQUIRE_RELEASE_REHEARSAL === "1") {
  throw new Error(`PTYHUB_REQUIRE_RELEASE_REHEARSAL=1 but the rehearsal lacks ${missing.join(", ")}`);
}

/** Building, installing verdaccio (network) and starting it; the first two run side by side. */
const SETUP_TIMEOUT_MS = 420_000;
/** One way in: a download of the ~50 MiB archive or package from loopback, unpacking, an MCP round trip. */
const WAY_TIMEOUT_MS = 180_000;
/** How long the processes of a closed MCP server (launchers, binary, shell) may take to be gone. */
const PROCESS_EXIT_MS = 10_000;
/** Where the archive is damaged for the tampering check: well inside the compressed stream. */
const TAMPER_OFFSET_FRACTION = 0.5;
/** A command whose output and exit code both show the shell really ran it. */
const EXEC_COMMAND = 'echo "rehearsal $((6 * 7))"; (exit 3)';
const EXEC_OUTPUT = "rehearsal 42";
const EXEC_EXIT_CODE = 3;

const target = hostTarget();
let scratch: string;
let releaseDir: string;
let assets: Server<undefined>;
let tampered: Uint8Array;
let registry: Verdaccio | undefined;
/** npm's user config for the ptyhub installs: the loopback registry only, and a dummy publish token. */
let npmrc: string;
let wayCount = 0;

/** GitHub's download URL forms, for the tag and for the latest release, under the asset server. */
function downloadBase(route: "tag" | "latest" | "tampered"): string {
  const path = route === "tag" ? `download/v${VERSION}` : "latest/download";
  const prefix = route === "tampered" ? "/tampered" : "";
  return `http://127.0.0.1:${assets.port}${prefix}/${GITHUB_REPO}/releases/${path}`;
}

function serveAssets(githubDir: string): Server<undefined> {
  const releases = `/${GITHUB_REPO}/releases/`;
  const routes = [`${releases}download/v${VERSION}/`, `${releases}latest/download/`];
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      let path = new URL(request.url).pathname;
      const isTampered = path.startsWith("/tampered/");
      if (isTampered) path = path.slice("/tampered".length);
      const route = routes.find((r) => path.startsWith(r));
      const name = route ? path.slice(route.length) : "";
      // Only the release's own files: a plain name, nothing outside the assets directory.
      if (!route || name !== basename(name) || name.startsWith(".") || !existsSync(join(githubDir, name)))
        return new Response("not found", { status: 404 });
      if (isTampered && name.endsWith(".tar.gz")) return new Response(tampered);
      return new Response(Bun.file(join(githubDir, name)));
    },
  });
}

/** A HOME (and XDG dirs, TMPDIR) of its own for one way in; of this process's environment only PATH. */
function wayEnv(label: string, extra: Record<string, string> = {}): Record<string, string> {
  const home = join(scratch, `home-${label}-${++wayCount}`);
  return isolatedEnv(home, { SHELL: Bun.which("bash") ?? "/bin/sh", ...extra });
}

/** npm's settings for a way in: the loopback registry (npmrc), a cache of its own, no chatter. */
function npmEnv(label: string): Record<string, string> {
  const env = wayEnv(label);
  return {
    ...env,
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: join(scratch, "empty-global-npmrc"),
    npm_config_cache: join(env.HOME!, ".npm"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/**
 * Every URL npm fetched with this (fresh) cache: its index keys each request by URL, so a package
 * from anywhere but the loopback registry would show here.
 */
function npmRequests(cache: string): string[] {
  const index = join(cache, "_cacache", "index-v5");
  const urls = new Set<string>();
  for (const entry of readdirSync(index, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
    for (const match of text.matchAll(/"key":"make-fetch-happen:request-cache:([^"]+)"/g)) urls.add(match[1]!);
  }
  return [...urls];
}

async function mustRun(argv: string[], env: Record<string, string>, cwd = scratch): Promise<string> {
  const result = await runProcess(argv, { cwd, env, timeoutMs: WAY_TIMEOUT_MS });
  if (result.code !== 0)
    throw new Error(`${argv.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * Starts `command` as an MCP client would, with exactly `env`, and checks it is this release's
 * ptyhub: `initialize` names it and its version, and `term_exec` runs a command in a real shell.
 * Afterwards every process it started (a launcher chain, the binary, the shell) must be gone.
 */
async function answersMcp(command: string, args: string[], env: Record<string, string>): Promise<void> {
  const onlyEnv = Object.fromEntries(Object.keys(process.env).map((k): [string, string | undefined] => [k, undefined]));
  const mcp = await startMcp({ command, args, env: { ...onlyEnv, ...env }, cwd: env.HOME! });
  let tree: number[] = [mcp.pid];
  let failure: Error | null = null;
  try {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: "ptyhub", version: VERSION });
    const opened = await mcp.ok("term_open", { persistent: false });
    tree = [mcp.pid, ...descendants(mcp.pid)];
    const ran = await mcp.ok("term_exec", { session: opened.session, command: EXEC_COMMAND });
    expect(ran).toMatchObject({ status: "done", exit_code: EXEC_EXIT_CODE, output: EXEC_OUTPUT });
  } catch (err) {
    failure = new Error(`${err instanceof Error ? err.message : String(err)}\n--- server ---\n${mcp.transcript()}`);
  }
  await mcp.close();
  const allGone = await waitFor(() => tree.every((pid) => !alive(pid)), PROCESS_EXIT_MS, "the server's processes")
    .then(() => true)
    .catch(() => false);
  if (!allGone) {
    const survivors = tree.filter(alive);
    for (const pid of survivors) killQuietly(pid);
    failure ??= new Error(`${command} ${args.join(" ")} left processes behind after its client closed: ${survivors}`);
  }
  if (failure) throw failure;
}

beforeAll(async () => {
  if (!available || !target) return;
  scratch = makeTempDir("rehearsal");
  releaseDir = join(scratch, "release");
  // npm refuses one file as both its user and its global config.
  for (const name of ["empty-user-npmrc", "empty-global-npmrc"]) writeFileSync(join(scratch, name), "");
  const verdaccioEnv = {
    ...wayEnv("verdaccio"),
    npm_config_userconfig: join(scratch, "empty-user-npmrc"),
    npm_config_globalconfig: join(scratch, "empty-global-npmrc"),
    npm_config_cache: join(scratch, "verdaccio-npm-cache"),
  };
  // Side by side (one waits on the network, the other on the CPU); settled both, so a failure of
  // one never leaves the other running past the test.
  const [installed, built] = await Promise.allSettled([
    installVerdaccio(join(scratch, "verdaccio"), verdaccioEnv),
    mustRun(
      [process.execPath, "scripts/release-assets.ts", "--target", target.bunTarget, "--out", releaseDir],
      wayEnv("build"),
      REPO_ROOT,
    ),
  ]);
  if (built.status === "rejected") throw built.reason;
  if (installed.status === "rejected") throw installed.reason;
  const verdaccioBin = installed.value;
  const archive = readFileSync(join(releaseDir, "github", archiveName(VERSION, target)));
  tampered = new Uint8Array(archive);
  const at = Math.floor(tampered.length * TAMPER_OFFSET_FRACTION);
  tampered[at] = tampered[at]! ^ 0xff;
  assets = serveAssets(join(releaseDir, "github"));
  registry = await startVerdaccio(join(scratch, "verdaccio"), verdaccioBin, verdaccioEnv);
  const host = `//127.0.0.1:${registry.port}/`;
  npmrc = join(scratch, "npmrc");
  // npm wants a token to publish even where anonymous publishing is allowed.
  writeFileSync(npmrc, `registry=${registry.url}\n${host}:_authToken=rehearsal\n`);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  assets?.stop(true);
  await registry?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!available || !target)("release rehearsal", () => {
  test("the release directory holds what the workflow uploads, and SHA256SUMS vouches for the archive", async () => {
    const github = join(releaseDir, "github");
    const archive = archiveName(VERSION, target!);
    expect(readdirSync(github).sort()).toEqual([archive, "SHA256SUMS", "install.sh"].sort());
    expect(readFileSync(join(github, "SHA256SUMS"), "utf8")).toBe(
      `${await sha256File(join(github, archive))}  ${archive}\n`,
    );
    expect(readFileSync(join(github, "install.sh"), "utf8")).toBe(readFileSync(join(REPO_ROOT, "install.sh"), "utf8"));
    expect(readdirSync(join(releaseDir, "npm")).sort()).toEqual(
      ["ptyhub", npmPackageName(target!).replace("@ptyhub/", "")].sort(),
    );
  });

  test(
    "curl … install.sh | sh from the latest release's URL installs a ptyhub that answers MCP",
    async () => {
      const env = wayEnv("install-sh", { PTYHUB_DOWNLOAD_BASE: downloadBase("latest") });
      const script = `${downloadBase("latest")}/install.sh`;
      const stdout = await mustRun(["sh", "-c", 'curl -fsSL "$1" | sh', "sh", script], env);
      const binary = join(env.HOME!, ".local", "bin", "ptyhub");
      expect(stdout).toContain(`Installed ptyhub ${VERSION} to ${binary}`);
      await answersMcp(binary, [], env);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "install.sh refuses an archive that does not match SHA256SUMS, and installs nothing",
    async () => {
      const env = wayEnv("tampered", { PTYHUB_DOWNLOAD_BASE: downloadBase("tampered") });
      const result = await runProcess(["sh", "-s"], {
        env,
        stdin: readFileSync(join(releaseDir, "github", "install.sh"), "utf8"),
        timeoutMs: WAY_TIMEOUT_MS,
      });
      expect(result.stderr).toContain(`checksum mismatch for ${archiveName(VERSION, target!)}`);
      expect(result.code).not.toBe(0);
      expect(existsSync(join(env.HOME!, ".local", "bin", "ptyhub"))).toBe(false);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "a release download by tag, checked with sha256sum -c, unpacks to a ptyhub that answers MCP",
    async () => {
      const env = wayEnv("download");
      const dir = join(env.HOME!, "Downloads");
      mkdirSync(dir);
      const archive = archiveName(VERSION, target!);
      for (const name of ["SHA256SUMS", archive])
        await mustRun([tools.curl!, "-fsSLO", `${downloadBase("tag")}/${name}`], env, dir);
      expect(await mustRun(["sha256sum", "-c", "--ignore-missing", "SHA256SUMS"], env, dir)).toBe(`${archive}: OK\n`);
      await mustRun(["tar", "-xzf", archive], env, dir);
      await answersMcp(join(dir, "ptyhub"), [], env);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "the npm packages publish to the registry in the workflow's order, and server.json names what it holds",
    async () => {
      const env = npmEnv("publish");
      const publish = [
        process.execPath,
        join(REPO_ROOT, "scripts", "npm-publish.ts"),
        "--dir",
        join(releaseDir, "npm"),
      ];
      await mustRun(publish, env);
      const view = JSON.parse(await mustRun([tools.npm!, "view", `ptyhub@${VERSION}`, "--json"], env));
      const serverJson = JSON.parse(readFileSync(join(releaseDir, "server.json"), "utf8"));
      // What the MCP Registry checks before it lists the entry.
      expect(serverJson.packages[0]).toMatchObject({ identifier: view.name, version: view.version });
      expect(view.mcpName).toBe(serverJson.name);
      expect(view.optionalDependencies[npmPackageName(target!)]).toBe(VERSION);
      // The platform package first: once `ptyhub` is visible, installs look for its binary at once.
      const platform = JSON.parse(await mustRun([tools.npm!, "view", npmPackageName(target!), "--json"], env));
      expect(Date.parse(platform.time[VERSION])).toBeLessThan(Date.parse(view.time[VERSION]));
      // A re-run of the release skips what is already there instead of failing.
      expect(await mustRun(publish, env)).toContain(`ptyhub@${VERSION} is already published`);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "npm i -g ptyhub from the registry installs a ptyhub that answers MCP, every package from that registry",
    async () => {
      const env = npmEnv("npm-global");
      const prefix = join(env.HOME!, "npm-global");
      await mustRun([tools.npm!, "install", "-g", "--prefix", prefix, "ptyhub"], env);
      const fetched = npmRequests(env.npm_config_cache!);
      expect(fetched).toEqual(
        expect.arrayContaining([
          `${registry!.url}ptyhub`,
          `${registry!.url}${npmPackageName(target!).replace("/", "%2f")}`,
        ]),
      );
      for (const url of fetched) expect(url.startsWith(registry!.url)).toBe(true);
      const installed = join(prefix, "lib", "node_modules", "ptyhub", "node_modules", npmPackageName(target!), "bin");
      expect(await sha256File(join(installed, "ptyhub"))).toBe(
        await sha256File(join(releaseDir, "build", stagingDirName(VERSION, target!), "ptyhub")),
      );
      await answersMcp(join(prefix, "bin", "ptyhub"), [], env);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "npx ptyhub from the registry answers MCP, every package from that registry",
    async () => {
      const env = npmEnv("npx");
      await answersMcp(tools.npx!, ["--yes", "--registry", registry!.url, "ptyhub"], env);
      const fetched = npmRequests(env.npm_config_cache!);
      expect(fetched).toContain(`${registry!.url}ptyhub`);
      for (const url of fetched) expect(url.startsWith(registry!.url)).toBe(true);
    },
    WAY_TIMEOUT_MS,
  );

  test(
    "bunx ptyhub from the registry answers MCP, every package from that registry",
    async () => {
      const npm = npmEnv("bunx");
      const env = {
        ...npm,
        NPM_CONFIG_REGISTRY: registry!.url,
        BUN_CONFIG_REGISTRY: registry!.url,
        BUN_INSTALL_CACHE_DIR: join(npm.HOME!, ".bun", "install", "cache"),
      };
      await answersMcp(process.execPath, ["x", "ptyhub"], env);
      // Bun names a package cached from a registry other than npm's `name@version@@host__hash@@@N`.
      // (scoped ones under their scope's directory; the `name/` directories beside them hold links).
      const cacheDir = env.BUN_INSTALL_CACHE_DIR;
      const cached = readdirSync(cacheDir)
        .flatMap((name) =>
          name.startsWith("@") ? readdirSync(join(cacheDir, name)).map((n) => `${name}/${n}`) : [name],
        )
        .filter((name) => name.includes("@@"));
      const fromRegistry = `@${VERSION}@@127.0.0.1__`;
      expect(cached.filter((p) => !p.includes(fromRegistry))).toEqual([]);
      for (const name of ["ptyhub", npmPackageName(target!)])
        expect(cached.some((p) => p.startsWith(`${name}${fromRegistry}`))).toBe(true);
    },
    WAY_TIMEOUT_MS,
  );
});
