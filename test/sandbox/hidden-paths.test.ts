/**
 * Which directories a sandboxed session is denied (sandbox/hidden-paths.ts), without starting
 * one: every name ptyhub could use, the server's created and the caller's only where they exist,
 * nested ones folded into their parent, and a refusal when one holds a writable path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hiddenDirs, isWithin, ptyhubDirs } from "../../src/backend/local/sandbox/hidden-paths.ts";
import { AppError } from "../../src/api/errors.ts";

let root: string;
let env: Record<string, string>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "hidden-paths-")));
  env = {
    HOME: join(root, "home"),
    XDG_RUNTIME_DIR: join(root, "run"),
    XDG_STATE_HOME: join(root, "state"),
    XDG_CONFIG_HOME: join(root, "config"),
    PTYHUB_SOCKET: join(root, "sock", "d.sock"),
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("hidden paths", () => {
  test("every directory ptyhub may use: from the environment and the defaults", () => {
    const dirs = ptyhubDirs(env);
    for (const d of [
      join(root, "sock"),
      join(root, "run", "ptyhub"),
      join(root, "state", "ptyhub"),
      join(root, "config", "ptyhub"),
      join(root, "home", ".local", "state", "ptyhub"),
      join(root, "home", ".config", "ptyhub"),
      `/tmp/ptyhub-${process.getuid?.() ?? 0}`,
    ]) {
      expect(dirs).toContain(d);
    }
  });

  test("the server's are created; the session's only hidden where they exist; nested ones folded", () => {
    const callerDir = join(root, "caller-state");
    const hidden = hiddenDirs([join(root, "tmp")], { XDG_STATE_HOME: callerDir }, env);
    expect(existsSync(join(root, "config", "ptyhub"))).toBe(true);
    expect(existsSync(join(callerDir, "ptyhub"))).toBe(false);
    expect(hidden).toContain(join(root, "sock"));
    mkdirSync(join(callerDir, "ptyhub"), { recursive: true });
    expect(hiddenDirs([], { XDG_STATE_HOME: callerDir }, env)).toContain(join(callerDir, "ptyhub"));
    // The socket inside the runtime dir: one cover for both.
    const nested = hiddenDirs([], {}, { ...env, PTYHUB_SOCKET: join(root, "run", "ptyhub", "d.sock") });
    expect(nested.filter((d) => isWithin(d, join(root, "run")))).toEqual([join(root, "run", "ptyhub")]);
  });

  test("a writable path that holds or lies inside a hidden one is refused with SPAWN_FAILED", () => {
    for (const writable of [join(root, "home"), join(root, "state", "ptyhub", "x")]) {
      let error: unknown = null;
      try {
        hiddenDirs([writable], {}, env);
      } catch (err) {
        error = err;
      }
      expect(error instanceof AppError ? error.code : error).toBe("SPAWN_FAILED");
    }
  });

  test("isWithin compares whole path components", () => {
    expect(isWithin("/a/b", "/a")).toBe(true);
    expect(isWithin("/a", "/a")).toBe(true);
    expect(isWithin("/ab", "/a")).toBe(false);
    expect(isWithin("/a/b", "/")).toBe(true);
  });
});
