import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type BunLookup, registrableBunPath } from "../../src/install/bun-path.ts";
import {
  currentProgram,
  launchCommandFor,
  portableLaunch,
  type RunningProgram,
} from "../../src/install/launch-command.ts";
import { REPO } from "../helpers/mcp-client.ts";

const FROM_SOURCE: RunningProgram = {
  compiled: false,
  execPath: "/home/u/.bun/bin/bun",
  cliPath: "/home/u/src/ptyhub/src/cli.ts",
  npmLauncherPath: undefined,
};

describe("launchCommandFor", () => {
  test("a compiled binary registers its own absolute path", () => {
    expect(launchCommandFor({ ...FROM_SOURCE, compiled: true, execPath: "/home/u/.local/bin/ptyhub" })).toEqual({
      command: "/home/u/.local/bin/ptyhub",
      args: [],
    });
  });

  test("running from source registers the absolute bun and cli.ts", () => {
    expect(launchCommandFor(FROM_SOURCE)).toEqual({
      command: "/home/u/.bun/bin/bun",
      args: ["/home/u/src/ptyhub/src/cli.ts"],
    });
  });

  test("a global npm install registers the platform binary it runs", () => {
    const program = {
      compiled: true,
      execPath: "/usr/lib/node_modules/@ptyhub/linux-x64/bin/ptyhub",
      cliPath: "/$bunfs/root/cli.ts",
      npmLauncherPath: "/usr/lib/node_modules/ptyhub/bin/ptyhub.js",
    };
    expect(launchCommandFor(program)).toEqual({ command: program.execPath, args: [] });
  });

  test("npx and bunx caches, which may be deleted, register the package runner instead", () => {
    const npx = {
      ...FROM_SOURCE,
      compiled: true,
      npmLauncherPath: "/home/u/.npm/_npx/1a2b3c/node_modules/ptyhub/bin/ptyhub.js",
    };
    expect(launchCommandFor(npx)).toEqual({ command: "npx", args: ["-y", "ptyhub"] });
    const bunxLauncher = {
      ...FROM_SOURCE,
      compiled: true,
      npmLauncherPath: "/tmp/bunx-1000-ptyhub@latest/node_modules/ptyhub/bin/ptyhub.js",
    };
    expect(launchCommandFor(bunxLauncher)).toEqual({ command: "bunx", args: ["ptyhub"] });
    const bunxSource = { ...FROM_SOURCE, cliPath: "/tmp/bunx-1000-ptyhub@latest/node_modules/ptyhub/src/cli.ts" };
    expect(launchCommandFor(bunxSource)).toEqual({ command: "bunx", args: ["ptyhub"] });
  });
});

describe("portableLaunch (a project's committed config)", () => {
  test("a path of this machine becomes plain `ptyhub`; a package runner stays as it is", () => {
    expect(portableLaunch(launchCommandFor(FROM_SOURCE))).toEqual({ command: "ptyhub", args: [] });
    expect(portableLaunch({ command: "/home/u/.local/bin/ptyhub", args: [] })).toEqual({ command: "ptyhub", args: [] });
    expect(portableLaunch({ command: "npx", args: ["-y", "ptyhub"] })).toEqual({
      command: "npx",
      args: ["-y", "ptyhub"],
    });
  });
});

describe("registrableBunPath: npm's bun.exe is registered as the bun on PATH", () => {
  /** A file system of links (path → the file it ends at) and the executables present. */
  function lookup(platform: NodeJS.Platform, path: string, links: Record<string, string>): BunLookup {
    return {
      platform,
      path,
      realpath: (p) => links[p] ?? (Object.values(links).includes(p) ? p : undefined),
      isExecutable: (p) => p in links || Object.values(links).includes(p),
    };
  }
  const NPM_GLOBAL = "/usr/lib/node_modules/bun/bin/bun.exe";

  test("npm i -g bun on Linux: /usr/bin/bun, the link that runs it, not …/bun.exe", () => {
    const fs = lookup("linux", "/usr/local/bin:/usr/bin", { "/usr/bin/bun": NPM_GLOBAL });
    expect(registrableBunPath(NPM_GLOBAL, fs)).toBe("/usr/bin/bun");
  });

  test("the project's own node_modules bun is a last resort: a lasting bun on PATH comes first", () => {
    const local = "/home/u/ptyhub/node_modules/bun/bin/bun.exe";
    const fs = lookup("linux", "/home/u/ptyhub/node_modules/.bin:/usr/bin", {
      "/home/u/ptyhub/node_modules/.bin/bun": local,
      "/usr/bin/bun": NPM_GLOBAL,
    });
    expect(registrableBunPath(local, fs)).toBe("/usr/bin/bun");
    const onlyLocal = lookup("linux", "/home/u/ptyhub/node_modules/.bin", {
      "/home/u/ptyhub/node_modules/.bin/bun": local,
    });
    expect(registrableBunPath(local, onlyLocal)).toBe("/home/u/ptyhub/node_modules/.bin/bun");
  });

  test("a bun installed as bun, and any path on Windows, are kept as they are", () => {
    expect(registrableBunPath("/home/u/.bun/bin/bun", lookup("linux", "/usr/bin", {}))).toBe("/home/u/.bun/bin/bun");
    const windows = "C:\\Users\\u\\AppData\\Roaming\\npm\\node_modules\\bun\\bin\\bun.exe";
    expect(registrableBunPath(windows, lookup("win32", "C:\\bin", {}))).toBe(windows);
  });

  test("with no bun on PATH at all, the running binary is still what runs ptyhub", () => {
    expect(registrableBunPath(NPM_GLOBAL, lookup("linux", "/usr/bin", {}))).toBe(NPM_GLOBAL);
  });

  test("this machine, from source: never a …/bun.exe on Linux or macOS", () => {
    const launch = launchCommandFor(currentProgram());
    if (process.platform !== "win32") expect(launch.command).not.toEndWith(".exe");
    expect(launch.args).toEqual([join(REPO, "src", "cli.ts")]);
  });
});
