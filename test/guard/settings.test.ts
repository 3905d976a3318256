/**
 * The guard's settings, as the human writes them in config.json: rules turned off, the guard
 * off, rules added; each on a real shell session in an in-process host. Also: a bad pattern in
 * the settings is a clear configuration error, not a crash.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { AppError } from "../../src/api/errors.ts";
import type { TestHost } from "../helpers/host.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const hosts: TestHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.shutdown();
});

/** A session in a fresh directory holding a file `victim`; `rm -r victim` there is harmless. */
async function hostWith(guard: Record<string, unknown>): Promise<{ host: TestHost; dir: string }> {
  const config = loadConfig({}, {});
  const host = newHost({ guard: { ...config.guard, ...guard } });
  hosts.push(host);
  const dir = mkdtempSync(join(tmpdir(), "guard-settings-"));
  writeFileSync(join(dir, "victim"), "x");
  await host.open({ name: "s", cwd: dir, command: "bash" }, ctx);
  return { host, dir };
}

async function blockedCode(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

describe("guard settings", () => {
  // A recursive chmod of a top-level directory that does not exist: judged dangerous by its
  // words, harmless when it runs (chmod only says the directory is missing).
  const CHMOD_MISSING_ROOT_DIR = "chmod -R 755 /ptyhub-guard-test-no-such-dir";

  test("defaults: a matching line is blocked without elicitation; a disabled rule lets it through", async () => {
    const strict = await hostWith({});
    expect(
      await blockedCode(
        strict.host.exec({ session: "s", command: "echo chmod -R 777 / is only words", ...defaults }, ctx),
      ),
    ).toBeNull();
    expect(
      await blockedCode(
        strict.host.exec({ session: "s", command: `echo x && ${CHMOD_MISSING_ROOT_DIR}`, ...defaults }, ctx),
      ),
    ).toBe("BLOCKED_BY_GUARD");

    const relaxed = await hostWith({ disable: ["chmod-recursive-root"] });
    const r = await relaxed.host.exec(
      { session: "s", command: `echo x && ${CHMOD_MISSING_ROOT_DIR}`, ...defaults },
      ctx,
    );
    expect(r.exit_code).toBe(1);
    expect(r.output).toContain("No such file or directory");
  });

  test("an added rule blocks what it matches; enabled:false turns the guard off", async () => {
    const added = await hostWith({
      rules: [{ id: "no-victim", pattern: "^rm .*victim", reason: "the victim file stays" }],
    });
    expect(await blockedCode(added.host.exec({ session: "s", command: "rm -f victim", ...defaults }, ctx))).toBe(
      "BLOCKED_BY_GUARD",
    );
    expect(readFileSync(join(added.dir, "victim"), "utf8")).toBe("x");
    expect(
      await blockedCode(
        added.host.send({ session: "s", text: "sudo -n rm victim", wait_ms: 2000, max_tokens: 1000 }, ctx),
      ),
    ).toBe("BLOCKED_BY_GUARD");

    const off = await hostWith({
      enabled: false,
      rules: [{ id: "no-victim", pattern: "^rm .*victim", reason: "the victim file stays" }],
    });
    expect((await off.host.exec({ session: "s", command: "rm -f victim && echo gone", ...defaults }, ctx)).output).toBe(
      "gone",
    );
  });

  test("a pattern that is not a regex is a configuration error", () => {
    const dir = mkdtempSync(join(tmpdir(), "guard-config-"));
    const prev = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = dir;
    try {
      Bun.spawnSync(["mkdir", "-p", join(dir, "ptyhub")]);
      writeFileSync(
        join(dir, "ptyhub", "config.json"),
        JSON.stringify({ guard: { rules: [{ id: "x", pattern: "(", reason: "r" }] } }),
      );
      expect(() => loadConfig({}, {})).toThrow(/guard\.rules\.0\.pattern: not a valid regular expression/);
    } finally {
      process.env.XDG_CONFIG_HOME = prev;
    }
  });
});
