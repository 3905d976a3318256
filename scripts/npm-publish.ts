#!/usr/bin/env bun
/**
 * Publishes the npm packages scripts/release-assets.ts made, to whatever registry npm's own
 * configuration names (the release workflow: npmjs.org with its token; the release rehearsal: a
 * verdaccio on loopback). One definition of the order and the re-run rule for both:
 *
 *   - the platform packages (`@ptyhub/*`) first, `ptyhub` last: once `ptyhub` is visible, an
 *     install resolves its optional dependencies at once, and they must already be there;
 *   - a package already published at this version is skipped, so a re-run of a failed release
 *     finishes the job instead of failing on the first package it published last time;
 *   - a prerelease (a version with `-`) goes to the `next` dist-tag, so `npm i ptyhub` keeps
 *     installing the last stable one.
 *
 *   bun scripts/npm-publish.ts [--dir dist/release/npm] [--provenance]
 *
 * --provenance: npm's provenance statement, which only a CI system with an OIDC token can sign.
 */
import { parseArgs } from "node:util";
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const DEFAULT_PACKAGES_DIR = resolve(import.meta.dir, "..", "dist", "release", "npm");
/** scripts/npm-packages.ts's directory for the launcher package, which depends on all the others. */
const MAIN_PACKAGE_DIR = "ptyhub";
const STABLE_TAG = "latest";
const PRERELEASE_TAG = "next";

interface Manifest {
  name: string;
  version: string;
}

async function manifestOf(dir: string): Promise<Manifest> {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Partial<Manifest>;
  if (typeof manifest.name !== "string" || typeof manifest.version !== "string")
    throw new Error(`${dir}/package.json has no name or version`);
  return { name: manifest.name, version: manifest.version };
}

function npm(): string {
  const found = Bun.which("npm");
  if (!found) throw new Error("npm is not on PATH");
  return found;
}

/** Whether the registry already has this exact version (npm view prints it then, and nothing otherwise). */
async function isPublished(m: Manifest): Promise<boolean> {
  const proc = Bun.spawn([npm(), "view", `${m.name}@${m.version}`, "version"], {
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return (await proc.exited) === 0 && stdout.trim() === m.version;
}

async function publish(dir: string, provenance: boolean): Promise<void> {
  const manifest = await manifestOf(dir);
  if (await isPublished(manifest)) {
    process.stdout.write(`${manifest.name}@${manifest.version} is already published\n`);
    return;
  }
  const tag = manifest.version.includes("-") ? PRERELEASE_TAG : STABLE_TAG;
  const argv = [npm(), "publish", dir, "--access", "public", "--tag", tag, ...(provenance ? ["--provenance"] : [])];
  const proc = Bun.spawn(argv, { stdout: "inherit", stderr: "inherit", stdin: "ignore" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`'${argv.join(" ")}' exited with ${code}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      dir: { type: "string", default: DEFAULT_PACKAGES_DIR },
      provenance: { type: "boolean", default: false },
    },
    strict: true,
  });
  const root = resolve(values.dir);
  const entries = await readdir(root, { withFileTypes: true });
  const platformDirs = entries
    .filter((e) => e.isDirectory() && e.name !== MAIN_PACKAGE_DIR)
    .map((e) => e.name)
    .sort();
  if (!entries.some((e) => e.isDirectory() && e.name === MAIN_PACKAGE_DIR))
    throw new Error(`${root} has no ${MAIN_PACKAGE_DIR}/ package; run scripts/release-assets.ts first`);
  if (platformDirs.length === 0) throw new Error(`${root} has no platform package`);
  for (const name of [...platformDirs, MAIN_PACKAGE_DIR]) await publish(join(root, name), values.provenance);
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    process.stderr.write(`npm-publish: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
