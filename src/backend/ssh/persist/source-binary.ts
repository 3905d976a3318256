/**
 * The ptyhub binary this machine can supply for a platform, for the kinds that run ptyhub
 * elsewhere (SSH's remote persistence, containers). Nothing is published yet, so when ptyhub runs
 * from its sources (bun src/cli.ts) it supplies what it can make itself: a build in the checkout's
 * `dist/` (`bun run build`), else one compiled now with `bun build --compile` (for another
 * platform with `--target`, which downloads that platform's Bun runtime once) into the place a
 * released binary of this version would be cached, so later opens find it. Compiling takes a
 * while, so it says so in the log (stderr, or the daemon's log) as it starts and ends.
 * Concurrent opens for one platform share one build.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { logger } from "../../../log.ts";
import { VERSION } from "../../../version.ts";
import { compiled, localBinaryFor, localPlatform, releaseCachePath } from "./platform.ts";

const log = logger("source-binary");

/** The checkout this ptyhub runs from, from this file's place in the sources. */
const CHECKOUT = join(import.meta.dir, "..", "..", "..", "..");
/** The CLI's entry point in that checkout. */
const ENTRY_POINT = join(CHECKOUT, "src", "cli.ts");

/** True when this ptyhub is bun running the sources of a checkout (not a compiled binary). */
export function runningFromSource(): boolean {
  return !compiled() && existsSync(ENTRY_POINT);
}

/** Where `bun run build` in checkout `root` puts the binary for `platform` (build.ts's staging dir). */
export function distBinaryPath(platform: string, root: string = CHECKOUT): string {
  return join(root, "dist", `ptyhub-${VERSION}-${platform}`, platform.startsWith("windows") ? "ptyhub.exe" : "ptyhub");
}

const building = new Map<string, Promise<string | null>>();

/**
 * A local binary of this version for `platform`: this executable or a cached release
 * (localBinaryFor), else, running from source, the checkout's `dist/` build or one compiled now
 * unless `build` is false (a look, such as term_list's, compiles nothing); null when there is none.
 */
export function suppliedBinary(platform: string, opts: { build: boolean }): Promise<string | null> {
  const known = localBinaryFor(platform);
  if (known) return Promise.resolve(known);
  if (!runningFromSource()) return Promise.resolve(null);
  const dist = distBinaryPath(platform);
  if (existsSync(dist)) return Promise.resolve(dist);
  if (!opts.build) return Promise.resolve(null);
  const under = building.get(platform);
  if (under) return under;
  const p = build(platform, releaseCachePath(platform)).finally(() => building.delete(platform));
  building.set(platform, p);
  return p;
}

async function build(platform: string, out: string): Promise<string | null> {
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.build-${process.pid}`;
  const cross = platform === localPlatform() ? [] : ["--target", `bun-${platform}`];
  const started = performance.now();
  const command = ["bun build --compile", ...cross].join(" ");
  log.warn(
    `compiling ptyhub ${VERSION} for ${platform} from ${CHECKOUT} (${command}), once per version: ` +
      `it takes a while; cached at ${out}`,
  );
  const proc = Bun.spawn([process.execPath, "build", "--compile", ...cross, ENTRY_POINT, "--outfile", tmp], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) {
    log.warn(`bun build --compile for ${platform} failed (${code}): ${err.trim().slice(-400)}`);
    return null;
  }
  renameSync(tmp, out);
  log.warn(`compiled ptyhub ${VERSION} for ${platform} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return out;
}
