/**
 * Putting ptyhub into a pod's container, by content hash, where there is no archive API: the
 * platform comes from `uname -sm` and which loader is there (provision.ts's probe, as over SSH);
 * the binary this ptyhub has for it (container-binary.ts's choice: its own, a cached release, or
 * one compiled from source) is streamed over an exec's stdin into `cat`, then checked by size and
 * renamed into place, so a cut upload never leaves a binary that looks whole. Its place is
 * /var/lib/ptyhub/bin/<version>-<sha256 prefix>/ptyhub where the pod's user may write there (pods
 * often run as non-root), else the same under ~/.local/share/ptyhub/bin. Where nothing can be
 * placed (no uname, an unknown platform, no binary for it, nowhere writable) NoPlacement says why.
 */
import { statSync } from "node:fs";
import { logger } from "../../log.ts";
import { LIBC_PROBE, platformOf, type Libc } from "../ssh/persist/platform.ts";
import { binaryDirName, NoPlacement } from "../container/container-binary.ts";
import { suppliedBinary } from "../ssh/persist/source-binary.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import type { PodInfo } from "./pod-api.ts";
import { podTarget } from "./pod-api.ts";
import { runPodExec } from "./pod-run.ts";

const log = logger("pod-binary");

/** Bound on the probes. */
const PROBE_MS = 15_000;
/** Bound on the upload: ~100 MB through an API server and a kubelet, on a slow link too. */
const UPLOAD_MS = 300_000;

/** The places tried, in order; $1 is the binary's directory name. Only ptyhub writes there. */
const ROOTS = '/var/lib/ptyhub/bin "${HOME:-/nonexistent}/.local/share/ptyhub/bin"';

/** Prints `present PATH` for a placed binary, else `absent`. */
const FIND =
  `for r in ${ROOTS}; do ` +
  'if [ -x "$r/$1/ptyhub" ]; then echo "present $r/$1/ptyhub"; exit 0; fi; done; echo absent';

/**
 * Writes stdin to the first writable place ($1 the directory name, $2 the size in bytes), checks
 * the size, and renames it into place; prints `placed PATH`.
 */
const PLACE =
  `for r in ${ROOTS}; do d="$r/$1"; if mkdir -p "$d" 2>/dev/null && [ -w "$d" ]; then ` +
  't="$d/ptyhub.part.$$"; ' +
  'if cat > "$t" && [ "$(($(wc -c < "$t")))" -eq "$2" ] && chmod 755 "$t" && mv -f "$t" "$d/ptyhub"; ' +
  'then echo "placed $d/ptyhub"; exit 0; fi; rm -f "$t"; echo "writing $d failed" >&2; exit 1; fi; done; ' +
  'echo "no writable place for ptyhub (/var/lib/ptyhub, ~/.local/share)" >&2; exit 1';

/** Placements under way, by pod and container: sessions opened at once share one upload. */
const placing = new Map<string, Promise<string | null>>();

/**
 * The path of ptyhub in the pod's container, placing it when it is missing and `upload` allows;
 * null when it is missing and `upload` is false.
 */
export function podBinary(k: KubeTarget, pod: PodInfo, opts: { upload: boolean }): Promise<string | null> {
  const key = `${k.server} ${podTarget(pod)}:${opts.upload}`;
  const known = placing.get(key);
  if (known) return known;
  const p = place(k, pod, opts).finally(() => placing.delete(key));
  placing.set(key, p);
  return p;
}

async function podPlatform(k: KubeTarget, pod: PodInfo): Promise<string> {
  const probe = await runPodExec(k, pod, ["/bin/sh", "-c", `uname -sm; ${LIBC_PROBE}`], { timeoutMs: PROBE_MS });
  const [uname = "", libc = "gnu"] = probe.out.trim().split("\n");
  const platform = platformOf(uname, libc.trim() === "musl" ? ("musl" satisfies Libc) : "gnu");
  if (!platform) throw new NoPlacement(`no ptyhub for the platform there (uname -sm: '${uname || probe.err.trim()}')`);
  return platform;
}

async function place(k: KubeTarget, pod: PodInfo, opts: { upload: boolean }): Promise<string | null> {
  const platform = await podPlatform(k, pod);
  const local = await suppliedBinary(platform, { build: opts.upload });
  if (!local) throw new NoPlacement(`this ptyhub has no binary for ${platform} to place there`);
  const dir = await binaryDirName(local);
  const found = await runPodExec(k, pod, ["/bin/sh", "-c", FIND, "ptyhub-find", dir], { timeoutMs: PROBE_MS });
  const present = /^present (.+)$/m.exec(found.out)?.[1];
  if (present) return present;
  if (!opts.upload) return null;
  const size = statSync(local).size;
  log.info(`placing ${local} (${size} bytes) in ${podTarget(pod)} over an exec`);
  const argv = ["/bin/sh", "-c", PLACE, "ptyhub-place", dir, String(size)];
  const r = await runPodExec(k, pod, argv, { stdin: Bun.file(local).stream(), timeoutMs: UPLOAD_MS });
  const placed = /^placed (.+)$/m.exec(r.out)?.[1];
  if (r.code !== 0 || !placed) throw new NoPlacement(r.err.trim() || r.message || `the upload ended with ${r.code}`);
  return placed;
}
