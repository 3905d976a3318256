/**
 * Which binary a remote host gets is decided from its `uname -sm`: the platforms ptyhub is built
 * for map to release names, anything else to null (and then to the install one-liner error, which
 * test/remote/remote.test.ts checks against a real sshd).
 */
import { describe, expect, test } from "bun:test";
import { platformOf } from "../../src/remote/provision.ts";

describe("platformOf", () => {
  test("maps the platforms ptyhub is built for", () => {
    expect(platformOf("Linux x86_64\n")).toBe("linux-x64");
    expect(platformOf("Linux aarch64")).toBe("linux-arm64");
    expect(platformOf("Darwin arm64")).toBe("darwin-arm64");
    expect(platformOf("Darwin x86_64")).toBe("darwin-x64");
  });

  test("anything else has no binary", () => {
    expect(platformOf("FreeBSD amd64")).toBeNull();
    expect(platformOf("Linux armv7l")).toBeNull();
    expect(platformOf("Linux riscv64")).toBeNull();
    expect(platformOf("")).toBeNull();
  });
});
