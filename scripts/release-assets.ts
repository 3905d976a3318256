#!/usr/bin/env bun
/**
 * Makes everything a release publishes, in one command that the release workflow
 * (.github/workflows/release.yml) and the release rehearsal (test/ship/release-rehearsal.test.ts)
 * both run, so what is rehearsed is what ships:
 *
 *   <out>/build/        build.ts's output: a staging directory per target, archives, SHA256SUMS
 *   <out>/github/       exactly the GitHub Release's assets: the archives, SHA256SUMS, install.sh
 *   <out>/npm/          the npm packages (scripts/npm-packages.ts); scripts/npm-publish.ts publishes them
 *   <out>/server.json   the MCP Registry entry, checked against the npm package it names
 *
 *   bun scripts/release-assets.ts [--all | --target bun-<os>-<arch>[-musl] ...] [--out dist/release]
 *
 * Without --all it builds the host's target (or the named ones) and packages only those binaries:
 * a rehearsal on one machine, never a release (the workflow passes --all).
 */
import { parseArgs } from "node:util";
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };

const REPO_ROOT = resolve(import.meta.dir, "..");
const DEFAULT_OUT_DIR = join(REPO_ROOT, "dist", "release");
const CHECKSUMS_FILE = "SHA256SUMS";
const INSTALL_SCRIPT = "install.sh";
const SERVER_JSON = "server.json";
/** Where the MCP Registry looks the package up; server.json must name this one. */
const NPM_REGISTRY_TYPE = "npm";

interface ServerJson {
  name?: unknown;
  version?: unknown;
  packages?: { registryType?: unknown; identifier?: unknown; version?: unknown }[];
}

async function run(argv: string[], what: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd: REPO_ROOT, stdout: "inherit", stderr: "inherit", stdin: "ignore" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`${what}: '${argv.join(" ")}' exited with ${code}`);
}

/** The archive names SHA256SUMS lists: the archives of this build, no more, no less. */
function checksummedNames(checksums: string): string[] {
  return checksums
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const match = /^[0-9a-f]{64} {2}(\S+)$/.exec(line);
      if (!match) throw new Error(`${CHECKSUMS_FILE}: unexpected line '${line}'`);
      return match[1]!;
    });
}

/**
 * The MCP Registry lists server.json's package only when that package, at that version, claims
 * server.json's name (its `mcpName`); a release whose entry disagrees with package.json would be
 * refused there after npm already has it, so it is refused here first.
 */
async function checkServerJson(): Promise<void> {
  const entry = JSON.parse(await readFile(join(REPO_ROOT, SERVER_JSON), "utf8")) as ServerJson;
  const problems: string[] = [];
  if (entry.name !== pkg.mcpName) problems.push(`name ${String(entry.name)} is not package.json's ${pkg.mcpName}`);
  if (entry.version !== pkg.version) problems.push(`version ${String(entry.version)} is not ${pkg.version}`);
  const npm = entry.packages?.filter((p) => p.registryType === NPM_REGISTRY_TYPE) ?? [];
  if (npm.length !== 1 || npm[0]!.identifier !== pkg.name || npm[0]!.version !== pkg.version)
    problems.push(`it must list exactly one npm package, ${pkg.name}@${pkg.version}`);
  if (problems.length > 0) throw new Error(`${SERVER_JSON}: ${problems.join("; ")}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      all: { type: "boolean", default: false },
      target: { type: "string", multiple: true, default: [] },
      out: { type: "string", default: DEFAULT_OUT_DIR },
    },
    strict: true,
  });
  if (values.all && values.target.length > 0) throw new Error("--all and --target exclude each other");
  await checkServerJson();
  const outDir = resolve(values.out);
  const buildDir = join(outDir, "build");
  const githubDir = join(outDir, "github");
  const npmDir = join(outDir, "npm");
  await rm(outDir, { recursive: true, force: true });

  const targets = values.all ? ["--all"] : values.target.flatMap((t) => ["--target", t]);
  await run([process.execPath, "build.ts", "--outdir", buildDir, ...targets], "build");
  const partial = values.all ? [] : ["--allow-missing"];
  await run(
    [process.execPath, "scripts/npm-packages.ts", "--dist", buildDir, "--out", npmDir, ...partial],
    "npm packages",
  );

  await mkdir(githubDir, { recursive: true });
  const checksums = await readFile(join(buildDir, CHECKSUMS_FILE), "utf8");
  for (const name of checksummedNames(checksums)) await copyFile(join(buildDir, name), join(githubDir, name));
  await copyFile(join(buildDir, CHECKSUMS_FILE), join(githubDir, CHECKSUMS_FILE));
  await copyFile(join(REPO_ROOT, INSTALL_SCRIPT), join(githubDir, INSTALL_SCRIPT));
  await copyFile(join(REPO_ROOT, SERVER_JSON), join(outDir, SERVER_JSON));
  process.stdout.write(`release assets of ptyhub ${pkg.version} → ${outDir}\n`);
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    process.stderr.write(`release-assets: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
