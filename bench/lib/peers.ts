/**
 * What the benchmark brings in on demand, never as dependencies of ptyhub:
 * - ptyai (the peer), installed from the npm registry into bench/.peers/ptyai, run under node;
 * - gpt-tokenizer (o200k_base ranks bundled in the package) into bench/.peers/tokenizer;
 * - the compiled ptyhub binary (the project's build.ts, else bun build --compile) in bench/.work,
 *   rebuilt when its sources change.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

export const REPO = join(import.meta.dir, "..", "..");
export const BENCH = join(REPO, "bench");
export const PEERS = join(BENCH, ".peers");
export const WORK = join(BENCH, ".work");

/** The peer, pinned: ptyai has a single published version as of this harness. */
export const PTYAI_VERSION = "0.1.1";
export const TOKENIZER_VERSION = "4.0.0";
/** npm install of a peer may compile node-pty with node-gyp: give it time, but not forever. */
const INSTALL_TIMEOUT_MS = 300_000;

export type Availability<T> = { ok: true; value: T; note: string } | { ok: false; reason: string };

function run(argv: string[], cwd: string, timeoutMs: number): { ok: boolean; out: string } {
  try {
    const r = Bun.spawnSync(argv, {
      cwd,
      stdout: "pipe",
      stderr: "pipe",
      timeout: timeoutMs,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    return { ok: r.exitCode === 0, out: (r.stdout.toString() + r.stderr.toString()).trim() };
  } catch (err) {
    return { ok: false, out: (err as Error).message };
  }
}

/** The first lines of npm's output that say what went wrong (e.g. "npm error code ECONNREFUSED"). */
function npmError(out: string): string {
  const lines = out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /error|ERR!/i.test(l) && !/complete log|npm help/.test(l));
  return (lines.length ? lines.slice(0, 2) : out.split("\n").slice(-2)).join(" / ").slice(0, 300);
}

function installedVersion(prefix: string, name: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")) as { version: string })
      .version;
  } catch {
    return null;
  }
}

function npmInstall(prefix: string, spec: string): { ok: boolean; out: string } {
  mkdirSync(prefix, { recursive: true });
  return run(
    ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", spec],
    prefix,
    INSTALL_TIMEOUT_MS,
  );
}

export interface PtyaiInstall {
  node: string;
  bin: string;
  version: string;
}

/** Installs ptyai@PTYAI_VERSION if needed and checks that node-pty's native addon loads. */
export function ensurePtyai(log: (msg: string) => void): Availability<PtyaiInstall> {
  const prefix = join(PEERS, "ptyai");
  const node = Bun.which("node");
  if (!node) return { ok: false, reason: "node is not on PATH (ptyai is a node MCP server)" };
  const loads = () => run([node, "-e", "require('node-pty')"], join(prefix, "node_modules", "ptyai"), 30_000);
  let note = "cached";
  if (installedVersion(prefix, "ptyai") !== PTYAI_VERSION || !loads().ok) {
    log(`installing ptyai@${PTYAI_VERSION} into ${relative(REPO, prefix)} (npm; node-pty may compile) …`);
    const r = npmInstall(prefix, `ptyai@${PTYAI_VERSION}`);
    if (!r.ok) return { ok: false, reason: `npm install ptyai@${PTYAI_VERSION} failed: ${npmError(r.out)}` };
    note = "installed now";
    if (!loads().ok) {
      // npm may skip install scripts (allowScripts): build node-pty's addon explicitly.
      const rb = run(["npm", "rebuild", "--prefix", prefix, "node-pty"], prefix, INSTALL_TIMEOUT_MS);
      const again = loads();
      if (!again.ok)
        return {
          ok: false,
          reason: `node-pty does not load under node after install: ${(rb.out + " " + again.out).slice(-300)}`,
        };
    }
  }
  const bin = join(prefix, "node_modules", "ptyai", "dist", "index.js");
  if (!existsSync(bin)) return { ok: false, reason: `ptyai's entry ${bin} is missing` };
  return { ok: true, value: { node, bin, version: PTYAI_VERSION }, note };
}

export type TokenCounter = (text: string) => number;

/** gpt-tokenizer's o200k_base counter, or the reason it is unavailable. */
export async function ensureTokenizer(log: (msg: string) => void): Promise<Availability<TokenCounter>> {
  const prefix = join(PEERS, "tokenizer");
  let note = "cached";
  if (installedVersion(prefix, "gpt-tokenizer") !== TOKENIZER_VERSION) {
    log(`installing gpt-tokenizer@${TOKENIZER_VERSION} into ${relative(REPO, prefix)} …`);
    const r = npmInstall(prefix, `gpt-tokenizer@${TOKENIZER_VERSION}`);
    if (!r.ok)
      return { ok: false, reason: `npm install gpt-tokenizer@${TOKENIZER_VERSION} failed: ${npmError(r.out)}` };
    note = "installed now";
  }
  try {
    const path = join(prefix, "node_modules", "gpt-tokenizer", "esm", "encoding", "o200k_base.js");
    const mod = (await import(path)) as { countTokens: (text: string, opts?: unknown) => number };
    // Program output may contain text that looks like special tokens: count it as plain text.
    const count: TokenCounter = (text) => mod.countTokens(text, { disallowedSpecial: new Set() });
    count("warm up");
    return { ok: true, value: count, note };
  } catch (err) {
    return { ok: false, reason: `gpt-tokenizer does not load: ${(err as Error).message}` };
  }
}

/** Hash of everything the compiled binary is built from. */
function sourceHash(): string {
  const h = createHash("sha256");
  h.update(Bun.version);
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else h.update(relative(REPO, path)).update(readFileSync(path));
    }
  };
  walk(join(REPO, "src"));
  walk(join(REPO, "scripts"));
  for (const f of ["package.json", "bun.lock", "build.ts"])
    if (existsSync(join(REPO, f))) h.update(readFileSync(join(REPO, f)));
  return h.digest("hex");
}

/** The first file named `ptyhub` under dir (build.ts writes dist/ptyhub-<version>-<os>-<arch>/ptyhub). */
function findBinary(dir: string): string | null {
  if (!existsSync(dir)) return null;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = findBinary(path);
      if (found) return found;
    } else if (name === "ptyhub") return path;
  }
  return null;
}

/**
 * The compiled ptyhub binary, rebuilt when its sources change. It is built the way releases are,
 * with the project's build.ts (host target) into bench/.work/dist; if build.ts is missing or
 * fails, with a plain `bun build --compile --minify --bytecode --splitting` into bench/.work/ptyhub.
 */
export function ensureBinary(log: (msg: string) => void): Availability<string> {
  mkdirSync(WORK, { recursive: true });
  const stamp = join(WORK, "ptyhub.hash");
  const hash = sourceHash();
  if (existsSync(stamp)) {
    const [oldHash, path, how] = readFileSync(stamp, "utf8").split("\n");
    if (oldHash === hash && path && existsSync(path)) return { ok: true, value: path, note: `${how}, cached` };
  }
  const t0 = performance.now();
  const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const distDir = join(WORK, "dist");
  let failure = "";
  if (existsSync(join(REPO, "build.ts"))) {
    log("building ptyhub with build.ts (host target) …");
    rmSync(distDir, { recursive: true, force: true });
    const r = run(["bun", "build.ts", "--outdir", distDir], REPO, 300_000);
    const bin = r.ok ? findBinary(distDir) : null;
    if (bin) {
      writeFileSync(stamp, `${hash}\n${bin}\nbuild.ts`);
      return { ok: true, value: bin, note: `build.ts, built in ${took()}` };
    }
    failure = `build.ts failed (${r.out.split("\n").slice(-2).join(" / ").slice(0, 200)}); `;
    log(`  ${failure}falling back to bun build --compile`);
  }
  const out = join(WORK, "ptyhub");
  log("compiling ptyhub (bun build --compile --minify --bytecode --splitting) …");
  const r = run(
    [
      "bun",
      "build",
      "--compile",
      "--minify",
      "--bytecode",
      "--splitting",
      "--format=esm",
      "src/cli.ts",
      "--outfile",
      out,
    ],
    REPO,
    300_000,
  );
  if (!r.ok || !existsSync(out))
    return { ok: false, reason: `${failure}bun build --compile failed: ${r.out.split("\n").slice(-5).join(" ")}` };
  writeFileSync(stamp, `${hash}\n${out}\nbun build --compile`);
  return { ok: true, value: out, note: `${failure}bun build --compile, built in ${took()}` };
}

/**
 * The minimal SDK server (bench/fixtures/minimal-server.ts), compiled like ptyhub: the floor its
 * cold start is compared with. Rebuilt when the fixture, the lockfile or Bun change.
 */
export function ensureMinimalServer(log: (msg: string) => void): Availability<string> {
  mkdirSync(WORK, { recursive: true });
  const src = join(BENCH, "fixtures", "minimal-server.ts");
  const out = join(WORK, "minimal-server");
  const stamp = join(WORK, "minimal-server.hash");
  const hash = createHash("sha256")
    .update(Bun.version)
    .update(readFileSync(src))
    .update(readFileSync(join(REPO, "bun.lock")))
    .digest("hex");
  if (existsSync(stamp) && existsSync(out) && readFileSync(stamp, "utf8") === hash)
    return { ok: true, value: out, note: "cached" };
  log("compiling the minimal SDK server (bun build --compile --minify --bytecode) …");
  const r = run(
    ["bun", "build", "--compile", "--minify", "--bytecode", "--format=esm", src, "--outfile", out],
    REPO,
    300_000,
  );
  if (!r.ok || !existsSync(out))
    return { ok: false, reason: `bun build --compile failed: ${r.out.split("\n").slice(-3).join(" ")}` };
  writeFileSync(stamp, hash);
  return { ok: true, value: out, note: "built" };
}
