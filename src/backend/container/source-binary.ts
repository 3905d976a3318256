/**
 * A ptyhub binary for this machine's platform when ptyhub runs from its sources (bun src/cli.ts):
 * compiled once with `bun build --compile` into the place a released binary of this version would
 * be cached (provision.ts's releaseCachePath), so later opens, and SSH's remote persistence, find it.
 * Concurrent opens share one build.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { logger } from "../../log.ts";
import { compiled, localPlatform, releaseCachePath } from "../ssh/persist/provision.ts";

const log = logger("container-binary");

/** The CLI's entry point, from this file's place in the sources. */
const ENTRY_POINT = join(import.meta.dir, "..", "..", "cli.ts");

let building: Promise<string | null> | null = null;

/** The compiled binary for this platform, built when missing; null when this ptyhub is not running from source. */
export function sourceBuiltBinary(): Promise<string | null> {
  if (compiled() || !existsSync(ENTRY_POINT)) return Promise.resolve(null);
  const out = releaseCachePath(localPlatform());
  if (existsSync(out)) return Promise.resolve(out);
  building ??= build(out).finally(() => (building = null));
  return building;
}

async function build(out: string): Promise<string | null> {
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.build-${process.pid}`;
  log.info(`compiling ptyhub from ${ENTRY_POINT} for a container (bun build --compile)`);
  const proc = Bun.spawn([process.execPath, "build", "--compile", ENTRY_POINT, "--outfile", tmp], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) {
    log.warn(`bun build --compile failed (${code}): ${err.trim().slice(-400)}`);
    return null;
  }
  renameSync(tmp, out);
  return out;
}
