/**
 * Platforms and the ptyhub binaries this machine holds for them: release names from `uname -sm`
 * and the C library, this process's own platform, and where a binary of this version for a
 * platform is found locally (this executable when compiled, else the release cache). Shared by
 * the kinds that run ptyhub elsewhere (SSH's remote persistence, containers).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../../version.ts";

/** `uname -m` → the architecture in release names. */
const ARCHES: Record<string, string> = { x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" };

/** The C library a Linux host runs programs with: a glibc build does not start on musl (Alpine). */
export type Libc = "gnu" | "musl";

/**
 * `uname -sm` (and the libc) → the release platform name, for the platforms ptyhub is built for
 * (build.ts names musl builds `linux-<arch>-musl`).
 */
export function platformOf(uname: string, libc: Libc = "gnu"): string | null {
  const [os, machine] = uname.trim().split(/\s+/);
  const arch = ARCHES[machine ?? ""] ?? null;
  if (!arch) return null;
  if (os === "Linux") return libc === "musl" ? `linux-${arch}-musl` : `linux-${arch}`;
  if (os === "Darwin") return `darwin-${arch}`;
  return null;
}

/** Loaders that tell the libcs apart, as install.sh does: a musl loader and no glibc one is musl. */
const MUSL_LOADERS = "/lib/ld-musl-*.so.1";
const GLIBC_LOADERS = "/lib*/ld-linux*.so.*";
/** Prints `musl` or `gnu` for the host it runs on. */
export const LIBC_PROBE =
  `if ls ${MUSL_LOADERS} >/dev/null 2>&1 && ! ls ${GLIBC_LOADERS} >/dev/null 2>&1; ` +
  "then echo musl; else echo gnu; fi";

/** This process's platform, in the same names (Node's arch names are the releases' already). */
export function localPlatform(): string {
  const musl = process.platform === "linux" && localLibc() === "musl";
  return `${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
}

let libcHere: Libc | null = null;

function localLibc(): Libc {
  if (libcHere) return libcHere;
  const r = Bun.spawnSync(["sh", "-c", LIBC_PROBE], { stdout: "pipe", stderr: "ignore" });
  libcHere = r.stdout.toString().trim() === "musl" ? "musl" : "gnu";
  return libcHere;
}

/** True when this process is a compiled ptyhub binary (not bun running the sources). */
export function compiled(): boolean {
  const main = Bun.main;
  return main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(main);
}

/** Where released binaries are kept locally: `<cache>/ptyhub/release/ptyhub-<version>-<platform>/ptyhub`. */
export function releaseCachePath(platform: string, env: Record<string, string | undefined> = process.env): string {
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(cache, "ptyhub", "release", `ptyhub-${VERSION}-${platform}`, "ptyhub");
}

/** A local binary of this ptyhub version for `platform`, or null. */
export function localBinaryFor(platform: string): string | null {
  if (platform === localPlatform() && compiled()) return process.execPath;
  const cached = releaseCachePath(platform);
  return existsSync(cached) ? cached : null;
}
