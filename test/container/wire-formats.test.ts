/**
 * The container backend's own wire formats, checked against the real tools where there are some:
 * the tar writer against GNU tar, the stdcopy demuxer against frames cut at every byte, and where
 * the engine's address comes from.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tarArchive, tarFileStream } from "../../src/backend/container/tar.ts";
import { StdcopyDemuxer, type StdStream } from "../../src/backend/container/stdcopy.ts";
import { engineAddress } from "../../src/backend/container/engine-address.ts";
import { PidAnnouncement } from "../../src/backend/container/pid-announce.ts";
import { run, scratchDir } from "../ssh/sshd.ts";

function frame(stream: number, text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + payload.length);
  out[0] = stream;
  new DataView(out.buffer).setUint32(4, payload.length);
  out.set(payload, 8);
  return out;
}

describe("tar writer", () => {
  test("GNU tar reads its archive back: paths (long ones through the prefix field), modes, bytes", async () => {
    const dir = scratchDir("tar-");
    const long = `${"d".repeat(60)}/${"e".repeat(60)}/file`;
    const binary = new Uint8Array(1500).map((_, i) => (i * 7) % 256);
    const archive = tarArchive([
      { path: "var/lib/ptyhub/bin/x/ptyhub", mode: 0o755, data: binary },
      { path: long, mode: 0o600, data: new TextEncoder().encode("hello\n") },
    ]);
    expect(archive.length % 512).toBe(0);
    writeFileSync(join(dir, "a.tar"), archive);
    const out = join(dir, "out");
    mkdirSync(out);
    const r = await run(["tar", "-xf", join(dir, "a.tar"), "-C", out]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const bin = join(out, "var/lib/ptyhub/bin/x/ptyhub");
    expect(new Uint8Array(readFileSync(bin))).toEqual(binary);
    expect(statSync(bin).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(out, long), "utf8")).toBe("hello\n");
    expect(statSync(join(out, long)).mode & 0o777).toBe(0o600);
  });

  test("a file streamed into an archive reads back whole, whatever its length against the block size", async () => {
    const dir = scratchDir("tar-stream-");
    for (const size of [0, 1, 511, 512, 513, 70_000]) {
      const source = join(dir, `src-${size}`);
      const bytes = new Uint8Array(size).map((_, i) => (i * 13) % 256);
      writeFileSync(source, bytes);
      const stream = tarFileStream({ path: "bin/ptyhub", mode: 0o755, size }, Bun.file(source).stream());
      const archive = new Uint8Array(await new Response(stream).arrayBuffer());
      expect(archive.length % 512).toBe(0);
      writeFileSync(join(dir, "s.tar"), archive);
      const out = join(dir, `out-${size}`);
      mkdirSync(out);
      const r = await run(["tar", "-xf", join(dir, "s.tar"), "-C", out]);
      expect(r.err).toBe("");
      expect(new Uint8Array(readFileSync(join(out, "bin/ptyhub")))).toEqual(bytes);
    }
  });
});

describe("stdcopy demuxer", () => {
  test("frames cut at every byte come out whole, each on its stream", () => {
    const wire = [frame(1, "out one\n"), frame(2, "err\n"), frame(1, ""), frame(1, "out two")];
    const all = new Uint8Array(wire.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of wire) {
      all.set(f, at);
      at += f.length;
    }
    for (let cut = 1; cut < all.length; cut++) {
      const got: Array<[StdStream, string]> = [];
      const demux = new StdcopyDemuxer((stream, payload) => got.push([stream, new TextDecoder().decode(payload)]));
      demux.push(all.subarray(0, cut));
      demux.push(all.subarray(cut));
      expect(got).toEqual([
        ["stdout", "out one\n"],
        ["stderr", "err\n"],
        ["stdout", "out two"],
      ]);
    }
  });
});

describe("engine address", () => {
  test("container.socket, then DOCKER_HOST, then the engine's standard socket", () => {
    const env = { DOCKER_HOST: "tcp://10.0.0.5:2376" };
    expect(engineAddress("docker", "/run/x.sock", env)).toEqual({ kind: "unix", path: "/run/x.sock" });
    expect(engineAddress("docker", "unix:///run/y.sock", env)).toEqual({ kind: "unix", path: "/run/y.sock" });
    expect(engineAddress("docker", undefined, env)).toEqual({ kind: "tcp", hostname: "10.0.0.5", port: 2376 });
    expect(engineAddress("docker", "tcp://engine", {})).toEqual({ kind: "tcp", hostname: "engine", port: 2375 });
    expect(engineAddress("docker", undefined, {})).toEqual({ kind: "unix", path: "/var/run/docker.sock" });
    expect(engineAddress("podman", undefined, {})).toEqual({ kind: "unix", path: "/run/podman/podman.sock" });
    expect(() => engineAddress("docker", "ssh://host", {})).toThrow("container.socket");
  });
});

describe("pid announcement", () => {
  test("taken off the stream wherever it is cut; output that does not start with one passes untouched", () => {
    const wire = new TextEncoder().encode("\x1b]ptyhub-exec-pid;4242\x07$ prompt");
    for (let cut = 0; cut <= wire.length; cut++) {
      const a = new PidAnnouncement();
      const out = [a.take(wire.subarray(0, cut)), a.take(wire.subarray(cut)), a.rest()];
      expect(out.map((b) => new TextDecoder().decode(b)).join("")).toBe("$ prompt");
      expect(a.pid).toBe(4242);
    }
    const plain = new PidAnnouncement();
    expect(new TextDecoder().decode(plain.take(new TextEncoder().encode("sh: error\x07 more")))).toBe(
      "sh: error\x07 more",
    );
    expect(plain.pid).toBeNull();
    const short = new PidAnnouncement();
    expect(short.take(new TextEncoder().encode("bye")).length).toBe(0);
    expect(new TextDecoder().decode(short.rest())).toBe("bye");
  });
});
