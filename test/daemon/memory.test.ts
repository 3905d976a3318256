/**
 * Memory comes back after a flood: the daemon's RSS returns to within 20 MB of what it was before
 * the flooding sessions opened, soon after they close. Real MCP server, real daemon, real shells.
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { COLLECT_AFTER_END_MS } from "../../src/session/memory.ts";
import { daemonStatus } from "../helpers/daemon.ts";
import { waitFor } from "../helpers/wait.ts";
import { fixture, settleLeftovers } from "./helpers.ts";

/** The target. */
const RSS_SLACK_MB = 20;
const FLOODERS = 3;
/** The collection runs COLLECT_AFTER_END_MS after the last close; the rest is slack for a loaded machine. */
const RETURN_WITHIN_MS = COLLECT_AFTER_END_MS + 4000;

const fx = fixture();
afterEach(fx.cleanup);

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1];
  return Math.round(Number(kb) / 1024);
}

test("after flooding sessions close, the daemon's RSS returns to within 20 MB of before", async () => {
  const e = fx.env();
  const a = await fx.server(e);
  // Warm up: the modules a session needs are loaded, and the collection after its close has run.
  await a.ok("term_open", { name: "warm" });
  await a.ok("term_exec", { session: "warm", command: "seq 1 1000" });
  await a.ok("term_close", { session: "warm" });
  const pid = (await daemonStatus(e))!.pid;
  // Not a barrier: a quiet window so the baseline is taken after the collector settled (no event says so).
  await Bun.sleep(1500);
  const before = rssMb(pid);

  const names = Array.from({ length: FLOODERS }, (_, i) => `flood${i}`);
  for (const name of names) await a.ok("term_open", { name });
  await Promise.all(
    names.map((session) =>
      a.ok("term_exec", {
        session,
        command: "seq 1 500000 | sed 's/$/ flood line with some text/'",
        timeout_ms: 120_000,
      }),
    ),
  );
  const peak = rssMb(pid);
  for (const session of names) await a.ok("term_close", { session });

  const closedAt = Date.now();
  let after = rssMb(pid);
  await waitFor(
    () => (after = rssMb(pid)) <= before + RSS_SLACK_MB,
    RETURN_WITHIN_MS,
    `RSS back near ${before} MB (now ${after} MB)`,
  ).catch(() => undefined);
  console.log(
    `daemon RSS: ${before} MB before, ${peak} MB after the flood, ` +
      `${after} MB ${Date.now() - closedAt} ms after the sessions closed`,
  );
  expect(peak).toBeGreaterThan(before);
  expect(after).toBeLessThanOrEqual(before + RSS_SLACK_MB);
}, 180_000);

afterAll(fx.cleanup);

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  await fx.cleanup();
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
