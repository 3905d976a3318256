/**
 * The user's key that both ends of a named-pipe connection prove they hold (src/daemon-client/pipe-auth.ts):
 * the key file (made once, exclusively, never half-read, never replaced) and the proofs (bound to
 * both challenges and to the prover's role, so neither a replay nor a reflection passes). The
 * exchange over a real socket is in protocol.test.ts; under Wine, on a real pipe, in
 * test/ship/windows.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError } from "../../src/api/errors.ts";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { checkProof, loadOrCreateKey, newChallenge, proveKey } from "../../src/daemon-client/pipe-auth.ts";
import { testEnv } from "./helpers.ts";

/** How many processes race to create one key file. */
const RACERS = 4;

function freshDir(): string {
  return mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "key-"));
}

describe("the key file", () => {
  test("is created once, private, and read back the same; no draft is left behind", () => {
    const dir = freshDir();
    const path = join(dir, "daemon.key");
    const key = loadOrCreateKey(path);
    expect(key.length).toBe(32);
    expect(readFileSync(path, "utf8")).toBe(`${key.toString("hex")}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateKey(path).equals(key)).toBe(true);
    expect(readdirSync(dir)).toEqual(["daemon.key"]);
  });

  test("a key already there is used, never replaced", () => {
    const path = join(freshDir(), "daemon.key");
    const hex = "ab".repeat(32);
    writeFileSync(path, hex, { mode: 0o600 });
    expect(loadOrCreateKey(path).toString("hex")).toBe(hex);
    expect(readFileSync(path, "utf8")).toBe(hex);
  });

  test("a file that holds no key is a clear error, and is left as it is", () => {
    const path = join(freshDir(), "daemon.key");
    writeFileSync(path, "not a key\n");
    let err: unknown;
    try {
      loadOrCreateKey(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("DAEMON_UNAVAILABLE");
    expect((err as AppError).message).toContain(path);
    expect((err as AppError).hint).toContain("Remove it");
    expect(readFileSync(path, "utf8")).toBe("not a key\n");
  });

  test("processes creating it at the same moment all end up with the one key", async () => {
    const dir = freshDir();
    const path = join(dir, "daemon.key");
    const module = join(import.meta.dir, "../../src/daemon-client/pipe-auth.ts");
    const script = `const { loadOrCreateKey } = await import(${JSON.stringify(module)});
      process.stdout.write(loadOrCreateKey(${JSON.stringify(path)}).toString("hex"));`;
    const procs = Array.from({ length: RACERS }, () =>
      Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" }),
    );
    const keys = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    expect(await Promise.all(procs.map((p) => p.exited))).toEqual(Array(RACERS).fill(0));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path, "utf8").trim()).toBe(keys[0]!);
    expect(readdirSync(dir)).toEqual(["daemon.key"]);
  });
});

describe("the proofs", () => {
  const key = Buffer.alloc(32, 7);
  const other = Buffer.alloc(32, 8);
  const d = newChallenge();
  const c = newChallenge();

  test("a proof checks against the same key, role and challenges only", () => {
    const proof = proveKey(key, "daemon", d, c);
    expect(checkProof(key, "daemon", d, c, proof)).toBe(true);
    expect(checkProof(other, "daemon", d, c, proof)).toBe(false);
    expect(checkProof(key, "daemon", c, d, proof)).toBe(false);
    expect(checkProof(key, "daemon", d, newChallenge(), proof)).toBe(false);
    expect(checkProof(key, "daemon", d, c, proof.slice(0, -2))).toBe(false);
    expect(checkProof(key, "daemon", d, c, "")).toBe(false);
  });

  test("one side's proof is never the other's: a squatter cannot reflect the client's proof back", () => {
    expect(proveKey(key, "daemon", d, c)).not.toBe(proveKey(key, "client", d, c));
    expect(checkProof(key, "daemon", d, c, proveKey(key, "client", d, c))).toBe(false);
    expect(checkProof(key, "client", d, c, proveKey(key, "daemon", d, c))).toBe(false);
  });

  test("challenges are fresh each time", () => {
    expect(new Set(Array.from({ length: 16 }, newChallenge)).size).toBe(16);
  });
});

describe("where a key is used", () => {
  test("a Unix socket needs none (its peer's uid is checked); a named pipe's key is in the daemon's dir", () => {
    expect(daemonPaths(testEnv()).key).toBeNull();
    const pipe = daemonPaths(testEnv({ PTYHUB_SOCKET: String.raw`\\.\pipe\ptyhub-test` }));
    expect(pipe.key).toBe(join(pipe.dir, "daemon.key"));
  });
});
