/**
 * The platforms ptyhub ships prebuilt binaries for, and the names derived from them. build.ts,
 * scripts/npm-packages.ts and the tests share this table so an archive, its npm package and the
 * install.sh lookup can never disagree about a name.
 */
import { existsSync } from "node:fs";

/** Where releases are published: GitHub Releases of this repository, and npm's `ptyhub`. */
export const GITHUB_REPO = "ptyhub/ptyhub";

export interface ReleaseTarget {
  /** The `bun build --compile --target` value. */
  bunTarget: Bun.Build.CompileTarget;
  /** OS as it appears in archive names (`uname -s`, lowercased; Windows is `windows`). */
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  musl: boolean;
  /** `process.platform` / npm `os` value for this target. */
  npmOs: "linux" | "darwin" | "win32";
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { bunTarget: "bun-linux-x64", os: "linux", arch: "x64", musl: false, npmOs: "linux" },
  { bunTarget: "bun-linux-arm64", os: "linux", arch: "arm64", musl: false, npmOs: "linux" },
  { bunTarget: "bun-linux-x64-musl", os: "linux", arch: "x64", musl: true, npmOs: "linux" },
  { bunTarget: "bun-darwin-x64", os: "darwin", arch: "x64", musl: false, npmOs: "darwin" },
  { bunTarget: "bun-darwin-arm64", os: "darwin", arch: "arm64", musl: false, npmOs: "darwin" },
  { bunTarget: "bun-windows-x64", os: "windows", arch: "x64", musl: false, npmOs: "win32" },
];

/** `linux-x64`, `linux-x64-musl`, `windows-x64`: the platform part of archive names. */
export function targetSlug(t: ReleaseTarget): string {
  return `${t.os}-${t.arch}${t.musl ? "-musl" : ""}`;
}

export function binaryName(t: ReleaseTarget): string {
  return t.os === "windows" ? "ptyhub.exe" : "ptyhub";
}

/** Windows users get a .zip (Explorer opens it natively); everyone else a .tar.gz. */
export function archiveName(version: string, t: ReleaseTarget): string {
  return `ptyhub-${version}-${targetSlug(t)}.${t.os === "windows" ? "zip" : "tar.gz"}`;
}

/** The directory build.ts compiles a target's binary into, next to its archive. */
export function stagingDirName(version: string, t: ReleaseTarget): string {
  return `ptyhub-${version}-${targetSlug(t)}`;
}

/**
 * The per-platform npm package (the esbuild pattern). Named after Node's `process.platform` and
 * `process.arch` so the launcher can compute the name without a table.
 */
export function npmPackageName(t: ReleaseTarget): string {
  return `@ptyhub/${t.npmOs}-${t.arch}${t.musl ? "-musl" : ""}`;
}

export function findTarget(bunTarget: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((t) => t.bunTarget === bunTarget);
}

/** Whether this Linux machine's C library is musl (Alpine and friends). */
export function hostIsMusl(): boolean {
  if (process.platform !== "linux") return false;
  // glibcVersionRuntime is absent exactly when the runtime is not linked against glibc; it is
  // the check detect-libc uses. The loader file is a fallback for runtimes without process.report.
  const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (report?.header) return report.header.glibcVersionRuntime === undefined;
  const loaderArch = process.arch === "arm64" ? "aarch64" : "x86_64";
  return existsSync(`/lib/ld-musl-${loaderArch}.so.1`);
}

/** The release target matching the machine running this script, if ptyhub ships one. */
export function hostTarget(): ReleaseTarget | undefined {
  const musl = hostIsMusl();
  return RELEASE_TARGETS.find((t) => t.npmOs === process.platform && t.arch === process.arch && t.musl === musl);
}
