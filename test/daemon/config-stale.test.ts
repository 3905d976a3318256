/**
 * The daemon reads its settings once, at its start. A valid change made while it runs (config.json's
 * `cols: 100`) is not taken by its new sessions; term_list says so at its head, where the model reads
 * it, and `ptyhub ls` to a human, each naming what applies it. After `ptyhub daemon --stop` the next
 * term_open starts a daemon with the new settings, and the notice is gone.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture, runCli } from "./helpers.ts";

const f = fixture();
afterEach(() => f.cleanup());

const STALE = /^\[the settings \(config\.json or PTYHUB_\* variables\) changed since the ptyhub daemon started/;

describe("settings changed while the daemon runs", () => {
  test("term_list and ptyhub ls say so until the daemon is restarted, which applies them", async () => {
    const configHome = mkdtempSync(join(process.env.PTYHUB_TEST_ROOT ?? tmpdir(), "cfg-"));
    mkdirSync(join(configHome, "ptyhub"));
    const configFile = join(configHome, "ptyhub", "config.json");
    const env = f.env({ XDG_CONFIG_HOME: configHome });
    const server = await f.server(env);

    const before = await server.ok("term_open", { name: "old" });
    expect(before.cols).toBe(120);
    expect((await server.call("term_list", {})).data.notices).toBeUndefined();

    writeFileSync(configFile, '{ "cols": 100 }\n');
    const stale = await server.call("term_list", {});
    expect(stale.text).toMatch(STALE);
    expect(stale.text).toContain("`ptyhub daemon --stop` (ending its 1 session) applies them");
    expect(stale.data.notices).toHaveLength(1);
    // The daemon has not taken it: a new session still gets the old width.
    expect((await server.ok("term_open", { name: "still-old" })).cols).toBe(120);
    expect((await runCli(env, ["ls"])).stderr).toContain("changed since the ptyhub daemon started");

    const stop = await runCli(env, ["daemon", "--stop"]);
    expect(stop.code).toBe(0);
    const after = await server.ok("term_open", { name: "new" });
    expect(after.cols).toBe(100);
    const list = await server.call("term_list", {});
    expect(list.data.notices).toBeUndefined();
    expect(list.text).not.toMatch(STALE);
  });
});
