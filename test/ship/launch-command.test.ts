import { describe, expect, test } from "bun:test";
import { launchCommandFor, portableLaunch, type RunningProgram } from "../../src/install/launch-command.ts";

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
