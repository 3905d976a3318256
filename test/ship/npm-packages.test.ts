/**
 * The npm distribution without a registry: scripts/npm-packages.ts turns the host build into the
 * `ptyhub` launcher package and this platform's `@ptyhub/*` package, `npm pack` packs them, and
 * `npm install -g` of both tarballs into a temp prefix must give a working `ptyhub` on Node.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { RELEASE_TARGETS, npmPackageName } from "../../scripts/release-targets.ts";
import {
  BUILD_TIMEOUT_MS,
  REPO_ROOT,
  VERSION,
  hostBuild,
  isolatedEnv,
  makeTempDir,
  runProcess,
  type HostBuild,
} from "./helpers.ts";

/** Packing gzips a ~110 MB binary and installing unpacks it again; both take a few seconds. */
const PACK_AND_INSTALL_TIMEOUT_MS = 180_000;
/** How long the launcher may take to pass SIGTERM on and exit. */
const SIGNAL_EXIT_TIMEOUT_MS = 10_000;

const npm = Bun.which("npm");
const node = Bun.which("node");
if (!npm || !node) console.warn("NOTE: node/npm are not installed; skipping the npm package tests (CI installs them).");

let build: HostBuild;
let scratch: string;
let env: Record<string, string>;
let prefix: string;
let launcherBin: string;

async function mustRun(argv: string[], cwd: string): Promise<string> {
  const result = await runProcess(argv, { cwd, env, timeoutMs: PACK_AND_INSTALL_TIMEOUT_MS });
  if (result.code !== 0)
    throw new Error(`${argv.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** What `npm pack` names this platform's package tarball. */
function platformTarballName(): string {
  return `ptyhub-${npmPackageName(build.target).replace("@ptyhub/", "")}-${VERSION}.tgz`;
}

beforeAll(async () => {
  if (!npm || !node) return;
  build = await hostBuild();
  scratch = makeTempDir("npm");
  // Empty npm configs of our own: the machine's npmrc (registry, auth, odd settings) stays out.
  const userNpmrc = join(scratch, "user-npmrc");
  const globalNpmrc = join(scratch, "global-npmrc");
  writeFileSync(userNpmrc, "");
  writeFileSync(globalNpmrc, "");
  // No registry: our packages come from the tarballs; --offline makes npm skip the other
  // platforms' optional packages instead of fetching them.
  env = isolatedEnv(join(scratch, "home"), {
    npm_config_userconfig: userNpmrc,
    npm_config_globalconfig: globalNpmrc,
    npm_config_cache: join(scratch, "npm-cache"),
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  });
  const out = join(scratch, "packages");
  await mustRun(
    [
      process.execPath,
      join(REPO_ROOT, "scripts", "npm-packages.ts"),
      "--dist",
      build.outDir,
      "--out",
      out,
      "--allow-missing",
    ],
    REPO_ROOT,
  );
  const platformDir = join(out, npmPackageName(build.target).replace("@ptyhub/", ""));
  const tarballs = join(scratch, "tarballs");
  mkdirSync(tarballs);
  await mustRun([npm, "pack", "--pack-destination", tarballs, join(out, "ptyhub"), platformDir], scratch);
  prefix = join(scratch, "prefix");
  const platformTarball = platformTarballName();
  await mustRun(
    [
      npm,
      "install",
      "-g",
      "--prefix",
      prefix,
      join(tarballs, `ptyhub-${VERSION}.tgz`),
      join(tarballs, platformTarball),
    ],
    scratch,
  );
  launcherBin = join(prefix, "bin", "ptyhub");
}, BUILD_TIMEOUT_MS + PACK_AND_INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!npm || !node)("npm packages", () => {
  test("the main package runs a Node launcher and depends on every platform package at its version", () => {
    const manifest = JSON.parse(readFileSync(join(prefix, "lib", "node_modules", "ptyhub", "package.json"), "utf8"));
    expect(manifest.bin).toEqual({ ptyhub: "bin/ptyhub.js" });
    // The MCP Registry lists it only when the package claims server.json's name.
    expect(manifest.mcpName).toBe(JSON.parse(readFileSync(join(REPO_ROOT, "server.json"), "utf8")).name);
    expect(manifest.optionalDependencies).toEqual(
      Object.fromEntries(RELEASE_TARGETS.map((t) => [npmPackageName(t), VERSION])),
    );
    expect(
      readFileSync(join(prefix, "lib", "node_modules", "ptyhub", "bin", "ptyhub.js"), "utf8").startsWith(
        "#!/usr/bin/env node\n",
      ),
    ).toBe(true);
  });

  test("the platform package declares os, cpu and libc so npm installs only the matching one", () => {
    const name = npmPackageName(build.target);
    const manifest = JSON.parse(
      readFileSync(join(prefix, "lib", "node_modules", ...name.split("/"), "package.json"), "utf8"),
    );
    expect(manifest).toMatchObject({ name, version: VERSION, os: [build.target.npmOs], cpu: [build.target.arch] });
    if (build.target.npmOs === "linux") expect(manifest.libc).toEqual([build.target.musl ? "musl" : "glibc"]);
  });

  test("`ptyhub --version` through the installed launcher (npm i -g)", async () => {
    const result = await runProcess([launcherBin, "--version"], { env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`ptyhub ${VERSION}\n`);
    expect(result.code).toBe(0);
    const launcherJs = join(prefix, "lib", "node_modules", "ptyhub", "bin", "ptyhub.js");
    const viaNode = await runProcess([node!, launcherJs, "--version"], { env });
    expect(viaNode.stdout).toBe(`ptyhub ${VERSION}\n`);
    // `bunx ptyhub` runs the same launcher, under Bun when Node is absent.
    const viaBun = await runProcess([process.execPath, launcherJs, "--version"], { env });
    expect(viaBun.stdout).toBe(`ptyhub ${VERSION}\n`);
  });

  test("the launcher passes the binary's exit code through", async () => {
    const result = await runProcess([launcherBin, "no-such-verb"], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'no-such-verb'");
  });

  test("the launcher serves MCP over stdio and passes SIGTERM on to the binary", async () => {
    const transport = new StdioClientTransport({ command: launcherBin, args: [], env, stderr: "pipe" });
    const client = new Client({ name: "ptyhub-ship-npm", version: "1.0.0" });
    let closed!: () => void;
    const transportClosed = new Promise<void>((resolve) => (closed = resolve));
    try {
      client.onclose = closed;
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: "ptyhub", version: VERSION });
      // The launcher's pid: if SIGTERM stopped only the launcher, the binary would keep the
      // stdout pipe open and the transport would never close.
      process.kill(transport.pid!, "SIGTERM");
      const outcome = await Promise.race([
        transportClosed.then(() => "closed"),
        Bun.sleep(SIGNAL_EXIT_TIMEOUT_MS).then(() => "timeout"),
      ]);
      expect(outcome).toBe("closed");
    } finally {
      await client.close();
    }
  });

  test(
    "a skipped platform package is installed on demand (exact version, into ptyhub's cache), else explained",
    async () => {
      const name = npmPackageName(build.target);
      rmSync(join(prefix, "lib", "node_modules", ...name.split("/")), { recursive: true });
      // Offline, from no registry: installing it fails, and the message says how to install it.
      const failed = await runProcess([launcherBin, "--version"], { env });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe("");
      expect(failed.stderr).toContain(`installing it now failed`);
      expect(failed.stderr).toContain(`npm i -g ptyhub ${name}@${VERSION}`);
      expect(failed.stderr).not.toContain("--omit=optional");
      // From a source npm can reach (here the tarball, as a mirror would serve it): installed and run.
      const onDemand = { ...env, PTYHUB_NPM_PLATFORM_SPEC: join(scratch, "tarballs", platformTarballName()) };
      const installed = await runProcess([launcherBin, "--version"], {
        env: onDemand,
        timeoutMs: PACK_AND_INSTALL_TIMEOUT_MS,
      });
      expect(installed.stdout).toBe(`ptyhub ${VERSION}\n`);
      expect(installed.stderr).toContain(`installing it into`);
      expect(installed.code).toBe(0);
      // Next time it is found in the cache: no install, nothing said.
      const cached = await runProcess([launcherBin, "--version"], { env });
      expect(cached.stderr).toBe("");
      expect(cached.stdout).toBe(`ptyhub ${VERSION}\n`);
    },
    PACK_AND_INSTALL_TIMEOUT_MS * 2,
  );
});
