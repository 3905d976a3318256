#!/usr/bin/env bun
/**
 * Turns the binaries in dist/ into npm packages (the esbuild pattern), so `npx ptyhub` and
 * `npm i -g ptyhub` work without Bun:
 *
 *   dist/npm/ptyhub/         `ptyhub`: bin/ptyhub.js (a Node launcher) + optionalDependencies on
 *                            every platform package at the same version
 *   dist/npm/linux-x64/ ...  `@ptyhub/linux-x64` etc.: just the binary, with os/cpu/libc fields
 *                            so npm installs only the one matching the machine
 *
 *   bun scripts/npm-packages.ts [--dist dist] [--out dist/npm] [--allow-missing]
 *
 * Run after `bun run build --all`. Publish the platform packages before the main one.
 * --allow-missing packages only the binaries present (for local tests of a host-only build).
 */
import { parseArgs } from "node:util";
import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import {
  GITHUB_REPO,
  RELEASE_TARGETS,
  binaryName,
  npmPackageName,
  stagingDirName,
  type ReleaseTarget,
} from "./release-targets.ts";

const LAUNCHER_SOURCE = resolve(import.meta.dir, "npm-launcher.cjs");
/** The MIT license text package.json's "license" names, shipped in every package (npm packs LICENSE). */
const LICENSE_SOURCE = resolve(import.meta.dir, "..", "LICENSE");
const MAIN_PACKAGE_DIR = "ptyhub";
/** The launcher uses only APIs that Node 18 has. */
const NODE_ENGINE = ">=18";
const EXECUTABLE_MODE = 0o755;

const repository = { type: "git", url: `git+https://github.com/${GITHUB_REPO}.git` };
const homepage = `https://github.com/${GITHUB_REPO}`;

/** The package directory of a platform package: `linux-x64`, `linux-x64-musl`, `win32-x64`. */
function platformDirName(t: ReleaseTarget): string {
  return npmPackageName(t).replace(/^@ptyhub\//, "");
}

function platformManifest(t: ReleaseTarget, version: string): Record<string, unknown> {
  return {
    name: npmPackageName(t),
    version,
    description: `The ptyhub binary for ${platformDirName(t)}. Install \`ptyhub\` instead; it picks this package when it fits.`,
    license: pkg.license,
    repository,
    homepage,
    os: [t.npmOs],
    cpu: [t.arch],
    // npm (and Bun) skip a package whose libc does not match, so glibc and musl machines each
    // download only their own binary.
    ...(t.npmOs === "linux" ? { libc: [t.musl ? "musl" : "glibc"] } : {}),
    files: ["bin"],
    // Yarn PnP must unpack it: the launcher execs a real file.
    preferUnplugged: true,
  };
}

function mainManifest(version: string): Record<string, unknown> {
  return {
    name: "ptyhub",
    version,
    description: pkg.description,
    license: pkg.license,
    repository,
    homepage,
    bin: { ptyhub: "bin/ptyhub.js" },
    // The MCP Registry checks that the package it lists claims the same name (server.json).
    mcpName: pkg.mcpName,
    files: ["bin", "README.md"],
    engines: { node: NODE_ENGINE },
    optionalDependencies: Object.fromEntries(RELEASE_TARGETS.map((t) => [npmPackageName(t), version])),
  };
}

const MAIN_README = `# ptyhub

Real, persistent terminal sessions for AI agents over MCP.

This package installs a small Node launcher plus the prebuilt ptyhub binary for your platform
(one of the \`@ptyhub/*\` optional dependencies). Register it with your MCP client:

    npx ptyhub install            # or: npm i -g ptyhub && ptyhub install

Documentation: ${homepage}
`;

async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, JSON.stringify(value, null, 2) + "\n");
}

async function buildPlatformPackage(
  t: ReleaseTarget,
  version: string,
  distDir: string,
  outDir: string,
): Promise<boolean> {
  const binary = join(distDir, stagingDirName(version, t), binaryName(t));
  if (!existsSync(binary)) return false;
  const dir = join(outDir, platformDirName(t));
  await mkdir(join(dir, "bin"), { recursive: true });
  await copyFile(binary, join(dir, "bin", binaryName(t)));
  await chmod(join(dir, "bin", binaryName(t)), EXECUTABLE_MODE);
  await writeJson(join(dir, "package.json"), platformManifest(t, version));
  await writeFile(
    join(dir, "README.md"),
    `# ${npmPackageName(t)}\n\nThe ptyhub binary for ${platformDirName(t)}. See ${homepage}.\n`,
  );
  await copyFile(LICENSE_SOURCE, join(dir, "LICENSE"));
  return true;
}

async function buildMainPackage(version: string, outDir: string): Promise<void> {
  const dir = join(outDir, MAIN_PACKAGE_DIR);
  await mkdir(join(dir, "bin"), { recursive: true });
  await copyFile(LAUNCHER_SOURCE, join(dir, "bin", "ptyhub.js"));
  await chmod(join(dir, "bin", "ptyhub.js"), EXECUTABLE_MODE);
  await writeJson(join(dir, "package.json"), mainManifest(version));
  await writeFile(join(dir, "README.md"), MAIN_README);
  await copyFile(LICENSE_SOURCE, join(dir, "LICENSE"));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      dist: { type: "string", default: resolve(import.meta.dir, "..", "dist") },
      out: { type: "string" },
      "allow-missing": { type: "boolean", default: false },
    },
    strict: true,
  });
  const version = pkg.version;
  const distDir = resolve(values.dist);
  const outDir = resolve(values.out ?? join(distDir, "npm"));
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });

  const missing: string[] = [];
  for (const t of RELEASE_TARGETS) {
    if (await buildPlatformPackage(t, version, distDir, outDir))
      process.stdout.write(`${npmPackageName(t)}@${version}\n`);
    else missing.push(npmPackageName(t));
  }
  if (missing.length > 0 && !values["allow-missing"]) {
    throw new Error(
      `no binary in ${distDir} for ${missing.join(", ")}; run 'bun run build --all' first (or pass --allow-missing)`,
    );
  }
  await buildMainPackage(version, outDir);
  process.stdout.write(
    `ptyhub@${version}${missing.length ? ` (without binaries for ${missing.join(", ")})` : ""} → ${outDir}\n`,
  );
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    process.stderr.write(`npm-packages: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
