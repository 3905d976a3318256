/**
 * The MCP server's own LocalHost is made with its first in-process session (src/host/local-slot.ts):
 * until then a RoutingHost answers from the daemon alone, refuses bad ids as the manager would, and
 * keeps its event listeners for the host to come. Real shells, a real (absent, then real) daemon.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { AppError } from "../../src/api/errors.ts";
import { DaemonHost } from "../../src/host/daemon-host.ts";
import { RoutingHost } from "../../src/host/routing-host.ts";
import type { HostEvent } from "../../src/api/host.ts";
import { LocalHostSlot } from "../../src/host/local-slot.ts";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";
import { stopDaemon } from "../helpers/daemon.ts";
import { testEnv } from "./helpers.ts";

/** Real shells on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 30_000;

const env = testEnv();
let made = 0;
const slot = new LocalHostSlot(async () => {
  made++;
  return newHost();
});
// Sessions are in-process unless they ask otherwise: the default session is this slot's.
const routing = new RoutingHost(slot, new DaemonHost({ env }), { persistentByDefault: false });

afterAll(async () => {
  await routing.shutdown();
  await stopDaemon(env);
});

/** How a call fails (a refusal may be thrown before the call returns its promise, as the manager's are). */
async function failure(call: () => Promise<unknown>): Promise<AppError> {
  const err: unknown = await (async () => call())().then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe("RoutingHost over a LocalHostSlot", () => {
  const events: HostEvent[] = [];
  routing.onSessionEvent((e) => events.push(e));

  test("before any in-process session: lists, refuses and routes without making the host", async () => {
    expect(await routing.call("list", {}, ctx)).toEqual([]);
    const invalid = await failure(() =>
      routing.call("send", { session: "no such id!", text: "x", ...sendDefaults }, ctx),
    );
    expect(invalid.code).toBe("INVALID_ARGUMENT");
    // A valid name nobody has: the daemon's answer (none runs).
    const missing = await failure(() =>
      routing.call("read", { session: "nobody", mode: "new", max_tokens: 4000 }, ctx),
    );
    expect(missing.code).toBe("SESSION_NOT_FOUND");
    expect(slot.current).toBeNull();
    expect(made).toBe(0);
  });

  test(
    "the first in-process session makes the host once; listeners subscribed before hear it",
    async () => {
      const [a, b] = await Promise.all([
        routing.call("open", { name: "first", persistent: false }, ctx),
        routing.call("open", { name: "second", persistent: false }, ctx),
      ]);
      expect([a.session, b.session]).toEqual(["first", "second"]);
      expect(made).toBe(1);
      expect(slot.current).not.toBeNull();
      expect(events.filter((e) => e.kind === "opened").map((e) => e.session)).toEqual(
        expect.arrayContaining(["first", "second"]),
      );
      const r = await routing.call("exec", { session: "first", command: "echo lazy-$((6*7))", ...defaults }, ctx);
      expect(r).toMatchObject({ status: "done", exit_code: 0, output: "lazy-42" });
      expect((await routing.call("list", {}, ctx)).map((s) => s.session).sort()).toEqual(["first", "second"]);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "shutdown ends the host's sessions",
    async () => {
      const host = slot.current;
      expect(host?.manager.size).toBe(2);
      await routing.shutdown();
      expect(host?.manager.size).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("LocalHostSlot", () => {
  test("a failed make is not remembered: the next call tries again", async () => {
    let attempts = 0;
    const flaky = new LocalHostSlot(async () => {
      attempts++;
      if (attempts === 1) throw new Error("first make fails");
      return newHost();
    });
    await expect(flaky.get()).rejects.toThrow("first make fails");
    expect(flaky.current).toBeNull();
    const host = await flaky.get();
    expect(flaky.current).toBe(host);
    expect(await flaky.get()).toBe(host);
    expect(attempts).toBe(2);
    await flaky.shutdown();
  });

  test(
    "shutdown waits for a host still being made, and ends its sessions",
    async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const host = newHost();
      const slow = new LocalHostSlot(async () => {
        await host.open({ name: "early" }, ctx);
        await gate;
        return host;
      });
      const making = slow.get();
      const stopping = slow.shutdown();
      release();
      expect(await making).toBe(host);
      await stopping;
      expect(host.manager.size).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
