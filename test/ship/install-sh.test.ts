/**
 * install.sh against a file server on 127.0.0.1 standing in for GitHub Releases: the real host
 * archive, a corrupted copy of it, and tiny fake archives for every other platform (each holds a
 * shell script that prints which platform it is, so platform detection can be checked here).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import type { Server } from "bun";
import { RELEASE_TARGETS, archiveName, targetSlug } from "../../scripts/release-targets.ts";
import {
  BUILD_TIMEOUT_MS,
  REPO_ROOT,
  VERSION,
  hostBuild,
  isolatedEnv,
  makeTempDir,
  runProcess,
  sha256File,
  type HostBuild,
} from "./helpers.ts";

const INSTALL_SH = join(REPO_ROOT, "install.sh");
const FAKE_VERSION = "9.8.7";
/** Where in the archive the corruption goes: well inside the compressed stream. */
const CORRUPT_OFFSET_FRACTION = 0.5;

let build: HostBuild;
let scratch: string;
let fakeDir: string;
let brokenDir: string;
let corruptArchive: Uint8Array;
let server: Server<undefined>;
let requests: string[] = [];

function baseUrl(route: "good" | "corrupt" | "fake" | "broken" | "empty"): string {
  return `http://127.0.0.1:${server.port}/${route}`;
}

/** A working fake: `ptyhub --version` prints `ptyhub fake-<slug>`. */
const fakeBinary = (slug: string) => `#!/bin/sh\necho "ptyhub fake-${slug}"\n`;
/** What Bun's musl build says on an Alpine without the C++ runtime. */
const brokenBinary = () =>
  `#!/bin/sh\necho "Error loading shared library libstdc++.so.6: No such file or directory (needed by ptyhub)" >&2\nexit 127\n`;

/** A fake release for every Unix target, whose `ptyhub` is the script `binary` returns. */
async function makeFakeRelease(dir: string, binary: (slug: string) => string): Promise<void> {
  mkdirSync(dir);
  const lines: string[] = [];
  for (const target of RELEASE_TARGETS.filter((t) => t.os !== "windows")) {
    const stage = join(dir, `stage-${targetSlug(target)}`);
    mkdirSync(stage, { recursive: true });
    writeFileSync(join(stage, "ptyhub"), binary(targetSlug(target)));
    chmodSync(join(stage, "ptyhub"), 0o755);
    const name = archiveName(FAKE_VERSION, target);
    const tar = await runProcess(["tar", "-czf", join(dir, name), "-C", stage, "ptyhub"]);
    if (tar.code !== 0) throw new Error(tar.stderr);
    lines.push(`${await sha256File(join(dir, name))}  ${name}`);
  }
  writeFileSync(join(dir, "SHA256SUMS"), lines.join("\n") + "\n");
}

beforeAll(async () => {
  build = await hostBuild();
  scratch = makeTempDir("install-sh");
  fakeDir = join(scratch, "fake-release");
  brokenDir = join(scratch, "broken-release");
  await makeFakeRelease(fakeDir, fakeBinary);
  await makeFakeRelease(brokenDir, brokenBinary);
  corruptArchive = new Uint8Array(readFileSync(build.archivePath));
  const at = Math.floor(corruptArchive.length * CORRUPT_OFFSET_FRACTION);
  corruptArchive[at] = corruptArchive[at]! ^ 0xff;

  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const [, route, name = ""] = new URL(request.url).pathname.split("/");
      requests.push(`${route}/${name}`);
      // Only plain file names: nothing outside the served directories is reachable.
      if (name !== basename(name) || name.startsWith(".")) return new Response("bad path", { status: 400 });
      if (route === "corrupt" && name.endsWith(".tar.gz")) return new Response(corruptArchive);
      const dirs: Record<string, string> = {
        good: build.outDir,
        corrupt: build.outDir,
        fake: fakeDir,
        broken: brokenDir,
      };
      const dir = dirs[route ?? ""];
      if (!dir || !existsSync(join(dir, name))) return new Response("not found", { status: 404 });
      return new Response(Bun.file(join(dir, name)));
    },
  });
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  server?.stop(true);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface InstallRun {
  code: number | null;
  stdout: string;
  stderr: string;
  installDir: string;
}

/** Runs install.sh the way users do (`curl … | sh`): the script arrives on stdin. */
async function runInstaller(extra: Record<string, string>, options: { installDir?: string } = {}): Promise<InstallRun> {
  // Inside scratch, so afterAll removes every installed binary with it.
  const home = mkdtempSync(join(scratch, "home-"));
  const installDir = options.installDir ?? join(home, ".local", "bin");
  const env = isolatedEnv(home, extra);
  const result = await runProcess(["sh"], { cwd: home, env, stdin: readFileSync(INSTALL_SH, "utf8") });
  return { ...result, installDir };
}

describe("install.sh", () => {
  test("installs the release archive for this machine and says how to put it on PATH", async () => {
    const run = await runInstaller({ PTYHUB_DOWNLOAD_BASE: baseUrl("good") });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Downloading ${basename(build.archivePath)}`);
    expect(run.stdout).toContain(`Installed ptyhub ${VERSION} to ${join(run.installDir, "ptyhub")}`);
    expect(run.stdout).toContain(`${run.installDir} is not on your PATH`);
    const installed = await runProcess([join(run.installDir, "ptyhub"), "--version"]);
    expect(installed.stdout).toBe(`ptyhub ${VERSION}\n`);
    expect(readdirSync(run.installDir)).toEqual(["ptyhub"]);
  });

  test("honours PTYHUB_VERSION and PTYHUB_INSTALL_DIR, and replaces an older install", async () => {
    const dir = join(mkdtempSync(join(scratch, "custom-")), "bin");
    mkdirSync(dir);
    writeFileSync(join(dir, "ptyhub"), "#!/bin/sh\necho old\n");
    const run = await runInstaller(
      {
        PTYHUB_DOWNLOAD_BASE: `${baseUrl("good")}/`,
        PTYHUB_VERSION: `v${VERSION}`,
        PTYHUB_INSTALL_DIR: dir,
        PATH: `${dir}:${process.env.PATH}`,
      },
      { installDir: dir },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Next: ptyhub install");
    expect((await runProcess([join(dir, "ptyhub"), "--version"])).stdout).toBe(`ptyhub ${VERSION}\n`);
  });

  test("refuses an archive whose checksum does not match, and installs nothing", async () => {
    const run = await runInstaller({ PTYHUB_DOWNLOAD_BASE: baseUrl("corrupt") });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`ptyhub install: checksum mismatch for ${basename(build.archivePath)}`);
    expect(run.stderr).toContain("nothing was installed");
    expect(existsSync(run.installDir)).toBe(false);
  });

  test("refuses a version the release does not list", async () => {
    const run = await runInstaller({ PTYHUB_DOWNLOAD_BASE: baseUrl("good"), PTYHUB_VERSION: "0.0.0-missing" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`does not list ptyhub-0.0.0-missing-`);
    expect(existsSync(run.installDir)).toBe(false);
  });

  test("fails clearly when SHA256SUMS cannot be downloaded", async () => {
    const run = await runInstaller({ PTYHUB_DOWNLOAD_BASE: baseUrl("empty") });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`could not download ${baseUrl("empty")}/SHA256SUMS`);
  });

  const platforms: Array<[string, Record<string, string>, string]> = [
    [
      "Linux x86_64 (glibc)",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "x86_64", PTYHUB_TEST_LIBC: "glibc" },
      "linux-x64",
    ],
    [
      "Linux amd64 (glibc)",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "amd64", PTYHUB_TEST_LIBC: "glibc" },
      "linux-x64",
    ],
    [
      "Linux aarch64 (glibc)",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "aarch64", PTYHUB_TEST_LIBC: "glibc" },
      "linux-arm64",
    ],
    [
      "Linux x86_64 (musl)",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "x86_64", PTYHUB_TEST_LIBC: "musl" },
      "linux-x64-musl",
    ],
    [
      "macOS arm64",
      { PTYHUB_TEST_UNAME_S: "Darwin", PTYHUB_TEST_UNAME_M: "arm64", PTYHUB_TEST_ROSETTA: "0" },
      "darwin-arm64",
    ],
    [
      "macOS x86_64",
      { PTYHUB_TEST_UNAME_S: "Darwin", PTYHUB_TEST_UNAME_M: "x86_64", PTYHUB_TEST_ROSETTA: "0" },
      "darwin-x64",
    ],
    [
      "macOS x86_64 under Rosetta",
      { PTYHUB_TEST_UNAME_S: "Darwin", PTYHUB_TEST_UNAME_M: "x86_64", PTYHUB_TEST_ROSETTA: "1" },
      "darwin-arm64",
    ],
  ];
  for (const [what, uname, slug] of platforms) {
    test(`picks the ${slug} archive on ${what}`, async () => {
      const run = await runInstaller({ ...uname, PTYHUB_DOWNLOAD_BASE: baseUrl("fake") });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Downloading ptyhub-${FAKE_VERSION}-${slug}.tar.gz`);
      expect(run.stdout).toContain(`Installed ptyhub fake-${slug} to`);
    });
  }

  test("says what to install when the musl binary lacks the C++ runtime (Alpine)", async () => {
    const run = await runInstaller({
      PTYHUB_TEST_UNAME_S: "Linux",
      PTYHUB_TEST_UNAME_M: "x86_64",
      PTYHUB_TEST_LIBC: "musl",
      PTYHUB_DOWNLOAD_BASE: baseUrl("broken"),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`installed ${join(run.installDir, "ptyhub")}, but it does not run on this machine`);
    expect(run.stderr).toContain("Alpine: apk add libstdc++ libgcc");
  });

  const unsupported: Array<[string, Record<string, string>, string]> = [
    [
      "FreeBSD",
      { PTYHUB_TEST_UNAME_S: "FreeBSD", PTYHUB_TEST_UNAME_M: "amd64" },
      "unsupported operating system 'FreeBSD'",
    ],
    [
      "Linux riscv64",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "riscv64", PTYHUB_TEST_LIBC: "glibc" },
      "unsupported CPU architecture 'riscv64'",
    ],
    [
      "Linux arm64 with musl",
      { PTYHUB_TEST_UNAME_S: "Linux", PTYHUB_TEST_UNAME_M: "aarch64", PTYHUB_TEST_LIBC: "musl" },
      "unsupported platform: Linux arm64 with musl libc",
    ],
    [
      "Windows (Git Bash)",
      { PTYHUB_TEST_UNAME_S: "MINGW64_NT-10.0-19045", PTYHUB_TEST_UNAME_M: "x86_64" },
      "this script does not install on Windows. Download ptyhub-<version>-windows-x64.zip",
    ],
  ];
  for (const [what, uname, message] of unsupported) {
    test(`refuses ${what} with a clear message, before downloading anything`, async () => {
      requests = [];
      const run = await runInstaller({ ...uname, PTYHUB_DOWNLOAD_BASE: baseUrl("fake") });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`ptyhub install: ${message}`);
      expect(run.stdout).toBe("");
      expect(requests).toEqual([]);
      expect(existsSync(run.installDir)).toBe(false);
    });
  }
});

const shellcheck = Bun.which("shellcheck");
if (!shellcheck) console.warn("NOTE: shellcheck is not installed; skipping the install.sh lint (CI installs it).");

test.skipIf(!shellcheck)("install.sh is POSIX sh and shellcheck-clean", async () => {
  const result = await runProcess([shellcheck!, "--shell=sh", "--severity=style", INSTALL_SH]);
  expect(result.stdout + result.stderr).toBe("");
  expect(result.code).toBe(0);
});
