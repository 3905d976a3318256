/**
 * SessionHost.call, the one way to reach any method of the host API table: a LocalHost applies it
 * (params and result checked against the table), and a RoutingHost sends it to whichever host has
 * the session it names (here: an in-process one, and one in a real daemon).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/api/errors.ts";
import { DaemonHost } from "../../src/host/daemon-host.ts";
import { RoutingHost } from "../../src/host/routing-host.ts";
import { ctx, newHost } from "../helpers/host.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { testEnv } from "./helpers.ts";

/** Real shells and a real daemon; generous for a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 30_000;

const env = testEnv();
const local = newHost();
const routing = new RoutingHost(local, new DaemonHost({ env }), { persistentByDefault: false });

afterAll(async () => {
  await routing.shutdown();
  await stopDaemon(env);
});

describe("SessionHost.call", () => {
  test(
    "a LocalHost applies a call by name, with defaults filled in and the result checked",
    async () => {
      await local.open({ name: "direct" }, ctx);
      const r = await local.call("exec", { session: "direct", command: "echo via-call-$((3*3))" }, ctx);
      expect(r).toMatchObject({ session: "direct", status: "done", exit_code: 0, output: "via-call-9" });
      const listed = await local.call("list", {}, ctx);
      expect(listed.map((s) => s.session)).toEqual(["direct"]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "params that break the table's schema change nothing",
    async () => {
      const bad: unknown = await local.call("resize", { session: "direct", cols: 9999, rows: 40 }, ctx).catch((e) => e);
      expect(bad).toBeInstanceOf(AppError);
      expect((bad as AppError).code).toBe("INVALID_ARGUMENT");
      expect((await local.call("list", {}, ctx))[0]).toMatchObject({ cols: 120, rows: 40 });
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a RoutingHost routes by the session named: in-process, or in the daemon",
    async () => {
      await routing.call("open", { name: "here", persistent: false }, ctx);
      await routing.call("open", { name: "there", persistent: true }, ctx);
      const here = await routing.call("exec", { session: "here", command: "echo $PPID" }, ctx);
      const there = await routing.call("exec", { session: "there", command: "echo $PPID" }, ctx);
      // The shells' parents: this process for the in-process one, the daemon for the other.
      expect(Number(here.output)).toBe(process.pid);
      expect(Number(there.output)).not.toBe(process.pid);
      expect(await routing.daemon.names()).toEqual(["there"]);
      await routing.call("close", { session: "there" }, ctx);
      expect(await routing.daemon.names()).toEqual([]);
      // A call naming no session goes to the default host (in-process here).
      expect((await routing.call("list", {}, ctx)).map((s) => s.session)).toEqual(["direct", "here"]);
    },
    TEST_TIMEOUT_MS,
  );
});
