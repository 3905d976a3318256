/**
 * The state of REPLs and their pagers as the model reads it (issue 22 item 4): python's help()
 * in less is `pager`, however short the text; after `tab` or `ctrl+u` at a python, redis-cli or
 * psql prompt the state is `prompt`, not `running`. The servers are real and started here, on
 * loopback, each with its own directory, and stopped at the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ctx, newHost, sendDefaults } from "../helpers/host.ts";
import { waitFor } from "../daemon/helpers.ts";

const host = newHost();
const dir = mkdtempSync(join(tmpdir(), "repl-states-"));
const servers: Subprocess[] = [];
const pgDirs: string[] = [];
const SERVER_START_MS = 60_000;

afterAll(async () => {
  await host.shutdown();
  for (const server of servers) {
    server.kill("SIGTERM");
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
  for (const pg of pgDirs) rmSync(pg, { recursive: true, force: true });
});

/** A free TCP port on loopback, as the kernel hands one out. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

function succeeds(argv: string[]): boolean {
  return Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

/**
 * Types `partial` at the REPL's prompt, then `key`; returns the state after the key. `clear`
 * leaves a fresh prompt for the next case (ctrl+c would end redis-cli: it clears the line there).
 */
async function stateAfterKey(session: string, partial: string, key: string, clear = ["ctrl+c"]): Promise<string> {
  await host.send({ session, text: partial, enter: false, ...sendDefaults }, ctx);
  const r = await host.send({ session, keys: [key], ...sendDefaults }, ctx);
  await host.send({ session, keys: clear, ...sendDefaults }, ctx);
  return r.state;
}

describe.if(process.platform === "linux")("REPL states", () => {
  test("python help(len) in less is a pager, every time; q comes back to the prompt", async () => {
    await host.open({ name: "py", command: "python3" }, ctx);
    for (let i = 0; i < 6; i++) {
      const r = await host.send({ session: "py", text: "help(len)", ...sendDefaults }, ctx);
      expect(r.state).toBe("pager");
      expect(r.screen).toContain("(END)");
      const back = await host.send({ session: "py", text: "q", enter: false, ...sendDefaults }, ctx);
      expect(back.state).toBe("prompt");
    }
  }, 30_000);

  test("python: after tab and after ctrl+u the state is prompt", async () => {
    expect(await stateAfterKey("py", "pri", "tab")).toBe("prompt");
    expect(await stateAfterKey("py", "pri", "ctrl+u")).toBe("prompt");
    await host.close({ session: "py" }, ctx);
  });

  describe("redis-cli against a redis-server started here", () => {
    let port = 0;
    beforeAll(async () => {
      port = freePort();
      const data = join(dir, "redis");
      Bun.spawnSync(["mkdir", "-p", data]);
      const args = ["--bind", "127.0.0.1", "--port", String(port), "--dir", data, "--save", "", "--appendonly", "no"];
      servers.push(Bun.spawn(["redis-server", ...args], { stdout: "ignore", stderr: "ignore" }));
      await waitFor(() => succeeds(["redis-cli", "-p", String(port), "ping"]), SERVER_START_MS, "redis-server up");
    }, SERVER_START_MS);

    test("at start and after a command the state is prompt", async () => {
      const o = await host.open({ name: "redis", command: "redis-cli", args: ["-p", String(port)] }, ctx);
      expect(o).toMatchObject({ state: "prompt" });
      const set = await host.send({ session: "redis", text: "SET greeting hello", ...sendDefaults }, ctx);
      expect(set).toMatchObject({ state: "prompt" });
      expect(set.output).toContain("OK");
    });

    // linenoise redraws its line after a bare CR, which the CR filter blanks until issue 22 item 1
    // is fixed (branch issue22-screens): the line is empty, so no text says "prompt" yet (state
    // reading). Passes in a trial merge with that branch: enable it there.
    test("after tab and after ctrl+u the state is prompt", async () => {
      const clearLine = ["ctrl+e", "ctrl+u"];
      expect(await stateAfterKey("redis", "SE", "tab", clearLine)).toBe("prompt");
      expect(await stateAfterKey("redis", "GET some-key", "ctrl+u", clearLine)).toBe("prompt");
    });

    afterAll(() => host.close({ session: "redis" }, ctx));
  });

  const pgBin = "/usr/lib/postgresql/15/bin";
  const havePostgres = succeeds(["test", "-x", `${pgBin}/postgres`]) && succeeds(["id", "postgres"]);
  describe.if(havePostgres)("psql against a PostgreSQL started here", () => {
    let port = 0;
    beforeAll(async () => {
      port = freePort();
      // Outside this run's private temp dir (0700, ours): the postgres user must reach it.
      const pg = mkdtempSync("/tmp/ptyhub-pg-");
      pgDirs.push(pg);
      // PostgreSQL refuses to run as root: its files and server belong to the postgres user.
      const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
      const owner = Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim();
      if (asPostgres.length > 0) chownSync(pg, Number(owner), -1);
      const init = Bun.spawnSync([
        ...asPostgres,
        `${pgBin}/initdb`,
        "-D",
        `${pg}/data`,
        "-A",
        "trust",
        "-U",
        "postgres",
      ]);
      expect(init.exitCode).toBe(0);
      const serverArgs = ["-D", `${pg}/data`, "-k", pg, "-h", "127.0.0.1", "-p", String(port), "-c", "fsync=off"];
      servers.push(
        Bun.spawn([...asPostgres, `${pgBin}/postgres`, ...serverArgs], { stdout: "ignore", stderr: "ignore" }),
      );
      const ready = ["psql", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-c", "select 1"];
      await waitFor(() => succeeds(ready), SERVER_START_MS, "postgres up");
    }, SERVER_START_MS);

    test("after tab and after ctrl+u the state is prompt", async () => {
      const args = ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres"];
      const o = await host.open({ name: "psql", command: "psql", args }, ctx);
      expect(o).toMatchObject({ state: "prompt" });
      expect(await stateAfterKey("psql", "SELE", "tab")).toBe("prompt");
      expect(await stateAfterKey("psql", "SELECT 1", "ctrl+u")).toBe("prompt");
      await host.close({ session: "psql" }, ctx);
    });
  });
});
