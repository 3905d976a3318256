/**
 * Which binary a remote host gets is decided from its `uname -sm` and its libc: the platforms
 * ptyhub is built for map to release names, anything else to null (and then to the install one-liner error, which
 * test/remote/remote.test.ts checks against a real sshd).
 */
import { describe, expect, test } from "bun:test";
import { LIBC_PROBE, localPlatform, platformOf } from "../../src/backend/ssh/persist/provision.ts";

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
