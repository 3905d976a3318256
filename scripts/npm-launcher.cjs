#!/usr/bin/env node
/*
 * ptyhub's npm launcher (published as bin/ptyhub.js of the `ptyhub` package). npm installs the
 * prebuilt binary for this machine as one optional dependency (`@ptyhub/<platform>-<arch>`,
 * filtered by their os/cpu/libc fields: the esbuild pattern); this script finds it and runs it
 * with the same arguments and stdio, forwards signals, and exits the way the binary exited.
 * Plain CommonJS for Node >= 18; Bun runs it as well.
 */
"use strict";

const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/**
 * Signals passed on to the binary, e.g. when an MCP client stops the launcher with SIGTERM.
 * Windows has only the console ones.
 */
const FORWARDED_SIGNALS =
  process.platform === "win32"
    ? ["SIGINT", "SIGTERM", "SIGHUP"]
    : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
/** Shell convention for "killed by signal N" when the signal cannot be re-raised. */
const SIGNAL_EXIT_BASE = 128;
const EXECUTABLE_MODE = 0o755;

/** musl or glibc, judged like detect-libc: ldd's text first (fast), then Node's process report. */
function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const ldd = fs.readFileSync("/usr/bin/ldd", "utf8");
    if (ldd.includes("musl")) return true;
    if (ldd.includes("GNU C Library") || ldd.includes("GLIBC")) return false;
  } catch {
    // No ldd script (some minimal images): fall through to the report.
  }
  try {
    const report = process.report && process.report.getReport();
    if (report && report.header) return !report.header.glibcVersionRuntime;
  } catch {
    // Not available in this runtime.
  }
  return false;
}

function platformPackageName(platform, arch, musl) {
  return `@ptyhub/${platform}-${arch}${musl ? "-musl" : ""}`;
}

/** This package's optional dependencies: each platform package and the exact version it pins. */
function platformPackages() {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
    return manifest.optionalDependencies || {};
  } catch {
    return {};
  }
}

/** The platform package's directory when it resolves from `paths` (default: next to this package). */
function resolvePackage(name, paths) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`, paths ? { paths } : undefined));
  } catch {
    return null;
  }
}

/**
 * npm leaves optional dependencies out in some setups (a lockfile made on another platform, a
 * package manager or flag that skips them); as esbuild's launcher does, fetch the one this machine
 * needs on demand: the exact version this launcher pins, with install scripts off, into ptyhub's
 * cache. PTYHUB_NPM_PLATFORM_SPEC names another source (a tarball path or URL: a mirror, no
 * registry); what it installs must still be that package at that version.
 */
function installOnDemand(name, version) {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  const dir = path.join(cacheRoot, "ptyhub", "npm", `${name.replace("/", "+")}@${version}`);
  const matches = (found) => {
    if (!found) return null;
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(found, "package.json"), "utf8"));
      return manifest.name === name && manifest.version === version ? found : null;
    } catch {
      return null;
    }
  };
  const cached = matches(resolvePackage(name, [dir]));
  if (cached) return cached;
  const spec = process.env.PTYHUB_NPM_PLATFORM_SPEC || `${name}@${version}`;
  process.stderr.write(`ptyhub: ${name} (this machine's binary) was not installed; installing it into ${dir}\n`);
  fs.mkdirSync(dir, { recursive: true });
  const npmArgs = ["install", "--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund"];
  // stdout is the MCP protocol's: npm's own output goes to stderr.
  const result = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", [...npmArgs, "--prefix", dir, spec], {
    stdio: ["ignore", 2, 2],
    shell: process.platform === "win32",
  });
  return result.status === 0 ? matches(resolvePackage(name, [dir])) : null;
}

function findBinary() {
  const name = platformPackageName(process.platform, process.arch, isMusl());
  const file = process.platform === "win32" ? "ptyhub.exe" : "ptyhub";
  const pinned = platformPackages();
  const version = pinned[name];
  const packageDir = resolvePackage(name) || (version ? installOnDemand(name, version) : null);
  if (!packageDir) {
    process.stderr.write(
      (version
        ? `ptyhub: this machine's binary package ${name} is not installed, and installing it now failed ` +
          `(see npm's message above). Install it yourself: npm i -g ptyhub ${name}@${version}\n`
        : `ptyhub: no prebuilt binary for ${process.platform}-${process.arch}${isMusl() ? " (musl)" : ""}. ` +
          `Supported: ${Object.keys(pinned).join(", ")}.\n`) +
        `Release archives and install.sh: https://github.com/ptyhub/ptyhub/releases\n`,
    );
    process.exit(1);
  }
  const binary = path.join(packageDir, "bin", file);
  if (process.platform !== "win32") {
    try {
      fs.accessSync(binary, fs.constants.X_OK);
    } catch {
      // Some package managers drop the executable bit of non-"bin" files.
      fs.chmodSync(binary, EXECUTABLE_MODE);
    }
  }
  return binary;
}

function run() {
  const binary = findBinary();
  const child = spawn(binary, process.argv.slice(2), {
    stdio: "inherit",
    windowsHide: true,
    // Tells `ptyhub install` it was started through npm, so it can tell an `npx` cache path
    // (which may be deleted) from a lasting global install.
    env: Object.assign({}, process.env, { PTYHUB_NPM_LAUNCHER: fs.realpathSync(__filename) }),
  });
  const forward = {};
  for (const signal of FORWARDED_SIGNALS) {
    forward[signal] = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    process.on(signal, forward[signal]);
  }
  child.on("error", (err) => {
    process.stderr.write(`ptyhub: could not start ${binary}: ${err.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const s of FORWARDED_SIGNALS) process.removeListener(s, forward[s]);
    if (signal) {
      // Die of the same signal, so whoever started us sees what really happened.
      process.kill(process.pid, signal);
      const number = require("node:os").constants.signals[signal];
      process.exit(SIGNAL_EXIT_BASE + (number || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

if (require.main === module) run();

module.exports = { isMusl, platformPackageName };
