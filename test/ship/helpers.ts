/**
 * Shared pieces of the packaging tests: one host build per `bun test` run, private temp dirs,
 * an environment that keeps every process away from the real HOME, and a process runner with a
 * deadline.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import {
  archiveName,
  binaryName,
  hostTarget,
  stagingDirName,
  type ReleaseTarget,
} from "../../scripts/release-targets.ts";

export const REPO_ROOT = resolve(import.meta.dir, "..", "..");
export const VERSION: string = pkg.version;
/** A host build takes 10–20 s here; leave room for a slow CI machine. */
export const BUILD_TIMEOUT_MS = 180_000;
/** Enough of a hash of the checkout path to keep two checkouts' builds apart. */
const CHECKOUT_HASH_LENGTH = 12;
/** Upper bound for one short-lived process (a --version, an install.sh run, an npm install). */
export const PROCESS_TIMEOUT_MS = 60_000;

export function makeTempDir(label: string): string {
  // realpath: macOS's /var → /private/var would otherwise make path comparisons fail.
  return realpathSync(mkdtempSync(join(tmpdir(), `ptyhub-ship-${label}-`)));
}

/**
 * HOME, XDG dirs and TMPDIR all inside `home`, so nothing a test starts can read or write the
 * real user's files, sockets or daemon.
 */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_RUNTIME_DIR: join(home, "run"),
    TMPDIR: join(home, "tmp"),
    // The daemon's socket is per uid by default (/tmp/ptyhub-<uid>): keep this one inside `home`.
    PTYHUB_SOCKET: join(home, "run", "ptyhub", "daemon.sock"),
    LANG: "C.UTF-8",
    // test/run.ts finds processes the suite leaked by this variable; keep ours findable.
    ...(process.env.PTYHUB_TEST_RUN ? { PTYHUB_TEST_RUN: process.env.PTYHUB_TEST_RUN } : {}),
    ...extra,
  };
  mkdirSync(env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  mkdirSync(env.TMPDIR!, { recursive: true, mode: 0o700 });
  return env;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | number | null;
  stdout: string;
  stderr: string;
}

export async function runProcess(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  const proc = Bun.spawn(argv, {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? PROCESS_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { code: proc.exitCode, signal: proc.signalCode, stdout, stderr };
}

export interface HostBuild {
  target: ReleaseTarget;
  outDir: string;
  binaryPath: string;
  archivePath: string;
  checksumsPath: string;
}

const pendingBuilds = new Map<string, Promise<HostBuild>>();

/**
 * One fixed directory per checkout and target, emptied and rebuilt by each run. bun test has no
 * hook that runs after the last test file, so a fresh temp dir per run would pile up ~160 MB each
 * time; this way at most one build per target is left behind (none under test/run.ts, which
 * removes its TMPDIR).
 */
function sharedBuildDir(target: ReleaseTarget): string {
  const checkout = new Bun.CryptoHasher("sha256").update(REPO_ROOT).digest("hex").slice(0, CHECKOUT_HASH_LENGTH);
  return join(tmpdir(), `ptyhub-ship-dist-${checkout}-${target.bunTarget}`);
}

/**
 * The host target built by build.ts (the same `bun run build` users run), once per test run and
 * shared by every ship test. PTYHUB_SHIP_DIST points at an existing build to skip building.
 */
export function hostBuild(): Promise<HostBuild> {
  const target = hostTarget();
  if (!target) throw new Error(`ptyhub has no release target for ${process.platform}-${process.arch}`);
  return targetBuild(target, process.env.PTYHUB_SHIP_DIST);
}

/**
 * Any release target, cross-compiled by build.ts once per test run (`reuse`: a directory that
 * already holds its build).
 */
export function targetBuild(target: ReleaseTarget, reuse?: string): Promise<HostBuild> {
  let pending = pendingBuilds.get(target.bunTarget);
  if (!pending) {
    pending = buildOnce(target, reuse);
    pendingBuilds.set(target.bunTarget, pending);
  }
  return pending;
}

async function buildOnce(target: ReleaseTarget, reuse: string | undefined): Promise<HostBuild> {
  const outDir = reuse ? resolve(reuse) : sharedBuildDir(target);
  if (!reuse) {
    rmSync(outDir, { recursive: true, force: true });
    const argv = [process.execPath, "build.ts", "--outdir", outDir];
    if (target !== hostTarget()) argv.push("--target", target.bunTarget);
    const result = await runProcess(argv, { cwd: REPO_ROOT, timeoutMs: BUILD_TIMEOUT_MS });
    if (result.code !== 0)
      throw new Error(`bun run build failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return {
    target,
    outDir,
    binaryPath: join(outDir, stagingDirName(VERSION, target), binaryName(target)),
    archivePath: join(outDir, archiveName(VERSION, target)),
    checksumsPath: join(outDir, "SHA256SUMS"),
  };
}

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(await Bun.file(path).arrayBuffer());
  return hasher.digest("hex");
}
