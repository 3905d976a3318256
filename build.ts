#!/usr/bin/env bun
/**
 * Builds ptyhub's self-contained release binaries.
 *
 *   bun run build                 the host target
 *   bun run build --all           every release target (see scripts/release-targets.ts)
 *   bun run build --target bun-linux-arm64 [--target ...] [--outdir dir]
 *
 * For each target: `dist/ptyhub-<version>-<os>-<arch>[-musl]/ptyhub[.exe]`, an archive next to it
 * (`.tar.gz`, `.zip` for Windows) holding just that binary, and `dist/SHA256SUMS` over the
 * archives of this run. Needs `tar` and, for Windows, `zip` on PATH.
 */
import { computeToolListing } from "./src/mcp/compute-listing.ts";
import { parseArgs } from "node:util";
import { chmod, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";
import pkg from "./package.json" with { type: "json" };
import {
  RELEASE_TARGETS,
  archiveName,
  binaryName,
  findTarget,
  hostTarget,
  stagingDirName,
  targetSlug,
  type ReleaseTarget,
} from "./scripts/release-targets.ts";

const ENTRY_POINT = resolve(import.meta.dir, "src/cli.ts");
const DEFAULT_OUT_DIR = resolve(import.meta.dir, "dist");
const CHECKSUMS_FILE = "SHA256SUMS";
/** How long the host binary may take to print its version before the build calls it broken. */
const VERSION_CHECK_TIMEOUT_MS = 10_000;
/** Sizes are printed in MiB (2^20 bytes), labelled so. */
const BYTES_PER_MIB = 1024 * 1024;

/**
 * ssh2 tries `require("cpu-features")` and its own compiled `sshcrypto.node` inside try/catch and
 * falls back to pure JS when they are missing. If either happens to be installed, `--compile`
 * would embed the addon and extract it at start (and only for the build machine's platform).
 * Resolving them to a module that throws makes every binary take the JS path, whatever is in
 * node_modules.
 */
const NATIVE_ADDON_PATTERN = /^cpu-features$|\.node$/;
const STUB_NAMESPACE = "native-addon-stub";
const noNativeAddons: BunPlugin = {
  name: "ptyhub-no-native-addons",
  setup(build) {
    build.onResolve({ filter: NATIVE_ADDON_PATTERN }, (args) => ({ path: args.path, namespace: STUB_NAMESPACE }));
    build.onLoad({ filter: /.*/, namespace: STUB_NAMESPACE }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is a native addon; ptyhub binaries use the JavaScript fallback`)});`,
      loader: "js",
    }));
  },
};

/**
 * How a release binary's code is bundled (bench/diag/startup-stages.ts builds its probe the same way).
 * `splitting` puts every dynamically imported module graph (the CLI's verbs, ssh2, the session stack)
 * in its own chunk inside the binary, read only when first imported: one bundle holding everything
 * cost ~7 ms of every start just to load, before any of it ran.
 */
export function bundleOptions(version: string) {
  return {
    minify: true,
    bytecode: true,
    splitting: true,
    format: "esm",
    define: {
      PTYHUB_BUILD_VERSION: JSON.stringify(version),
      // tools/list, generated from the zod schemas now rather than at every start (src/mcp/listing.ts).
      PTYHUB_TOOL_LISTING: JSON.stringify(JSON.stringify(computeToolListing())),
    },
    plugins: [noNativeAddons],
  } satisfies Partial<Bun.BuildConfig>;
}

interface BuiltTarget {
  target: ReleaseTarget;
  binaryPath: string;
  archivePath: string;
}

async function compile(target: ReleaseTarget, version: string, outDir: string): Promise<string> {
  const stagingDir = join(outDir, stagingDirName(version, target));
  await mkdir(stagingDir, { recursive: true });
  const binaryPath = join(stagingDir, binaryName(target));
  const result = await Bun.build({
    entrypoints: [ENTRY_POINT],
    compile: {
      target: target.bunTarget,
      outfile: binaryPath,
      // An MCP client starts ptyhub in whatever directory it likes. Loading that directory's
      // .env or bunfig.toml would silently change ptyhub and leak into every session it spawns.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
    ...bundleOptions(version),
    metafile: true,
    throw: false,
  });
  if (!result.success) {
    const details = result.logs.map((log) => `  ${String(log)}`).join("\n");
    throw new Error(`build for ${target.bunTarget} failed:\n${details}`);
  }
  assertNoNativeInputs(target, result.metafile);
  return binaryPath;
}

/** Belt and braces for the plugin above: no `.node` file may have reached the bundle. */
function assertNoNativeInputs(target: ReleaseTarget, metafile: unknown): void {
  const inputs = Object.keys((metafile as { inputs?: Record<string, unknown> } | undefined)?.inputs ?? {});
  const native = inputs.filter((path) => path.endsWith(".node") && !path.startsWith(`${STUB_NAMESPACE}:`));
  if (native.length > 0) throw new Error(`${target.bunTarget}: native addons were bundled: ${native.join(", ")}`);
}

/** Fails before a long build, not after it, when an archiver is missing. */
function checkArchivers(targets: ReleaseTarget[]): void {
  const needed = new Set(targets.map((t) => (t.os === "windows" ? "zip" : "tar")));
  const missing = [...needed].filter((tool) => !Bun.which(tool));
  if (missing.length > 0)
    throw new Error(
      `archiving needs ${missing.join(" and ")} on PATH (Debian/Ubuntu: apt-get install ${missing.join(" ")})`,
    );
}

async function run(argv: string[], what: string): Promise<void> {
  const proc = Bun.spawn(argv, { stdout: "inherit", stderr: "inherit" });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`${what}: '${argv.join(" ")}' exited with ${code}`);
}

async function archive(target: ReleaseTarget, version: string, binaryPath: string, outDir: string): Promise<string> {
  const archivePath = join(outDir, archiveName(version, target));
  const stagingDir = join(outDir, stagingDirName(version, target));
  await rm(archivePath, { force: true }); // zip adds to an existing archive instead of replacing it
  if (target.os === "windows") {
    // -j stores the file without its directory, -X leaves out Unix owner/time extras.
    await run(["zip", "-q", "-j", "-X", archivePath, binaryPath], `archiving ${targetSlug(target)}`);
  } else {
    await chmod(binaryPath, 0o755);
    await run(["tar", "-czf", archivePath, "-C", stagingDir, binaryName(target)], `archiving ${targetSlug(target)}`);
  }
  return archivePath;
}

async function sha256(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** `sha256sum`-compatible lines, so users can also check with `sha256sum -c --ignore-missing`. */
async function writeChecksums(outDir: string, archives: string[]): Promise<string> {
  const lines: string[] = [];
  for (const path of [...archives].sort()) lines.push(`${await sha256(path)}  ${path.slice(outDir.length + 1)}`);
  const checksumsPath = join(outDir, CHECKSUMS_FILE);
  await writeFile(checksumsPath, lines.join("\n") + "\n");
  return checksumsPath;
}

/** A binary that cannot report its own version is not shipped; only the host's can be run here. */
async function checkHostBinary(binaryPath: string, version: string): Promise<void> {
  const proc = Bun.spawn([binaryPath, "--version"], {
    stdout: "pipe",
    stderr: "pipe",
    timeout: VERSION_CHECK_TIMEOUT_MS,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const expected = `ptyhub ${version}`;
  if (code !== 0 || stdout.trim() !== expected) {
    throw new Error(
      `${binaryPath} --version printed '${stdout.trim()}' (exit ${code}), expected '${expected}'\n${stderr}`,
    );
  }
}

/** Removes earlier build outputs (ours only: never a wholesale delete of a user-given --outdir). */
async function cleanOutDir(outDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  for (const name of await readdir(outDir)) {
    if (name === CHECKSUMS_FILE || name.startsWith("ptyhub-")) {
      await rm(join(outDir, name), { recursive: true, force: true });
    }
  }
}

function selectTargets(all: boolean, named: string[]): ReleaseTarget[] {
  if (all) return [...RELEASE_TARGETS];
  if (named.length > 0) {
    return named.map((name) => {
      const target = findTarget(name);
      if (!target)
        throw new Error(`unknown target '${name}'; known: ${RELEASE_TARGETS.map((t) => t.bunTarget).join(", ")}`);
      return target;
    });
  }
  const host = hostTarget();
  if (!host) {
    throw new Error(
      `ptyhub has no release target for this machine (${process.platform}-${process.arch}); pass --target or --all`,
    );
  }
  return [host];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      all: { type: "boolean", default: false },
      target: { type: "string", multiple: true, default: [] },
      outdir: { type: "string", default: DEFAULT_OUT_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write("usage: bun run build [--all | --target bun-<os>-<arch>[-musl] ...] [--outdir dir]\n");
    return;
  }
  const version = pkg.version;
  const outDir = resolve(values.outdir);
  const targets = selectTargets(values.all, values.target);
  const host = hostTarget();
  checkArchivers(targets);
  await cleanOutDir(outDir);

  const started = performance.now();
  const built: BuiltTarget[] = [];
  for (const target of targets) {
    const t0 = performance.now();
    const binaryPath = await compile(target, version, outDir);
    if (target === host) await checkHostBinary(binaryPath, version);
    const archivePath = await archive(target, version, binaryPath, outDir);
    built.push({ target, binaryPath, archivePath });
    const binaryMib = (await stat(binaryPath)).size / BYTES_PER_MIB;
    const archiveMib = (await stat(archivePath)).size / BYTES_PER_MIB;
    const seconds = (performance.now() - t0) / 1000;
    const archiveSize = `${archiveName(version, target)} ${archiveMib.toFixed(1)} MiB`;
    process.stdout.write(
      `${target.bunTarget.padEnd(20)} binary ${binaryMib.toFixed(1)} MiB, ${archiveSize}, ${seconds.toFixed(1)} s\n`,
    );
  }
  const checksumsPath = await writeChecksums(
    outDir,
    built.map((b) => b.archivePath),
  );
  const total = (performance.now() - started) / 1000;
  process.stdout.write(
    `ptyhub ${version}: ${built.length} target(s) in ${total.toFixed(1)} s → ${outDir} (${checksumsPath.slice(outDir.length + 1)})\n`,
  );
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
