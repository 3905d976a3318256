/**
 * Which binary a remote host gets is decided from its `uname -sm` and its libc: the platforms
 * ptyhub is built for map to release names, anything else to null (and then to an error whose hint names
 * only what works today, which test/remote/remote.test.ts checks against a real sshd).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { LIBC_PROBE, localPlatform, platformOf } from "../../src/backend/ssh/persist/platform.ts";
import { distBinaryPath } from "../../src/backend/ssh/persist/source-binary.ts";
import { VERSION } from "../../src/version.ts";
import { binaryName, RELEASE_TARGETS, stagingDirName } from "../../scripts/release-targets.ts";

describe("platformOf", () => {
  test("maps the platforms ptyhub is built for", () => {
    expect(platformOf("Linux x86_64\n")).toBe("linux-x64");
    expect(platformOf("Linux aarch64")).toBe("linux-arm64");
    expect(platformOf("Darwin arm64")).toBe("darwin-arm64");
    expect(platformOf("Darwin x86_64")).toBe("darwin-x64");
  });

  test("a musl Linux gets the musl build, and the libc probe tells this glibc host apart", () => {
    expect(platformOf("Linux x86_64", "musl")).toBe("linux-x64-musl");
    expect(platformOf("Linux aarch64", "musl")).toBe("linux-arm64-musl");
    expect(platformOf("Darwin arm64", "musl")).toBe("darwin-arm64");
    const here = Bun.spawnSync(["sh", "-c", LIBC_PROBE], { stdout: "pipe" }).stdout.toString().trim();
    expect(here).toBe("gnu"); // CI and this machine run Debian (glibc)
    expect(localPlatform()).toBe(`linux-${process.arch}`);
  });

  test("anything else has no binary", () => {
    expect(platformOf("FreeBSD amd64")).toBeNull();
    expect(platformOf("Linux armv7l")).toBeNull();
    expect(platformOf("Linux riscv64")).toBeNull();
    expect(platformOf("")).toBeNull();
  });
});

describe("distBinaryPath", () => {
  test("is where `bun run build` puts each release target's binary (build.ts's staging dir)", () => {
    for (const target of RELEASE_TARGETS) {
      const platform = target.bunTarget.replace(/^bun-/, "");
      const built = join("/checkout", "dist", stagingDirName(VERSION, target), binaryName(target));
      expect(distBinaryPath(platform, "/checkout")).toBe(built);
    }
  });
});
