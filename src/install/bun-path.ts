/**
 * The bun executable a client config should name when ptyhub runs from source. The npm package
 * `bun` (npm i -g bun, or the project's own devDependency) installs its binary as `bin/bun.exe` on
 * every OS and links `bun` to it, so process.execPath says `…/bun.exe` on Linux too: a path that
 * reads as a Windows program and that the next `npm i -g bun` may move. The `bun` people run is
 * the link on PATH; that is the path to register.
 */
import { accessSync, constants, realpathSync } from "node:fs";
import { basename, delimiter, join, sep } from "node:path";

/** What the npm package names bun's binary, on every platform. */
const NPM_BUN_BINARY = "bun.exe";
const BUN_COMMAND = "bun";
const NODE_MODULES = "node_modules";

/** The file system as the choice sees it; tests pass their own. */
export interface BunLookup {
  platform: NodeJS.Platform;
  /** $PATH. */
  path: string;
  /** The file a path ends at, links followed; undefined when there is none. */
  realpath(path: string): string | undefined;
  isExecutable(path: string): boolean;
}

export const hostLookup: BunLookup = {
  platform: process.platform,
  path: process.env.PATH ?? "",
  realpath: (path) => {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  isExecutable: (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** A project's own node_modules comes and goes with `bun install`: a last resort, not a launch path. */
function insideNodeModules(path: string): boolean {
  return path.split(sep).includes(NODE_MODULES);
}

/**
 * `execPath` (the bun running now) as a client should run it: unchanged on Windows or when it is
 * not npm's `bun.exe`; otherwise the `bun` on PATH that is this very binary, else another `bun` on
 * PATH, preferring ones outside a node_modules directory, else `execPath` itself.
 */
export function registrableBunPath(execPath: string, lookup: BunLookup = hostLookup): string {
  if (lookup.platform === "win32" || basename(execPath) !== NPM_BUN_BINARY) return execPath;
  const running = lookup.realpath(execPath) ?? execPath;
  const onPath = lookup.path
    .split(delimiter)
    .filter((dir) => dir.length > 0)
    .map((dir) => join(dir, BUN_COMMAND))
    .filter((candidate) => lookup.isExecutable(candidate));
  const same = onPath.filter((candidate) => lookup.realpath(candidate) === running);
  const lasting = (paths: string[]) => paths.find((p) => !insideNodeModules(p));
  return lasting(same) ?? lasting(onPath) ?? same[0] ?? execPath;
}
