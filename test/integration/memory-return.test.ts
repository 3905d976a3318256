/**
 * When output makes the process collect its garbage (src/session/memory.ts): once a lot of output
 * has paused, and during a long flood, with the sessions still open; never for a little output.
 * Real shells on real PTYs; the collection itself is counted instead of run, so the test knows
 * exactly when one happened (RSS is measured by `bun run bench --only memory`).
 */
import { afterAll, afterEach, expect, test } from "bun:test";
import { ctx, newHost } from "../helpers/host.ts";
import { OUTPUT_PAUSE_MS, returnMemoryWhenSessionsEnd, type CollectReason } from "../../src/session/memory.ts";
import { SCROLLBACK_KEPT_ROWS } from "../../src/terminal/emulator.ts";

const host = newHost();
afterAll(() => host.shutdown());

/** Small thresholds, so that a few MB of real output exercise both triggers quickly. */
const AFTER_OUTPUT_BYTES = 256 * 1024;
const EVERY_OUTPUT_BYTES = 1024 * 1024;

const reasons: CollectReason[] = [];
let waiters: Array<{ reason: CollectReason; resolve: () => void }> = [];
/** No least interval between flood collections, unless a test sets one. */
let floodMinIntervalMs = 0;
let stop = start();
afterAll(() => stop());

function start(): () => void {
  return returnMemoryWhenSessionsEnd(host.manager, {
    collect: (why) => {
      reasons.push(why);
      for (const w of waiters.filter((w) => w.reason === why)) w.resolve();
      waiters = waiters.filter((w) => w.reason !== why);
    },
    afterOutputBytes: AFTER_OUTPUT_BYTES,
    everyOutputBytes: EVERY_OUTPUT_BYTES,
    floodMinIntervalMs,
  });
}
afterEach(() => {
  reasons.length = 0;
});

/** Resolves at the next collection for `reason` (the barrier), or rejects after `ms`. */
function nextCollection(reason: CollectReason, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${reason}" collection within ${ms} ms`)), ms);
    waiters.push({
      reason,
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
    });
  });
}

test("a lot of output, then a pause: one collection, with the session still open", async () => {
  await host.open({ name: "paused" }, ctx);
  const collected = nextCollection("paused");
  // ~590 KB of output: over the threshold, under the flood interval.
  const r = await host.exec({ session: "paused", command: "seq 1 100000", timeout_ms: 30_000, max_tokens: 200 }, ctx);
  expect(r.status).toBe("done");
  await collected;
  expect(reasons.filter((r) => r === "paused")).toHaveLength(1);
  expect(reasons).not.toContain("flood");
  expect(host.manager.get("paused").alive).toBe(true);
  await host.close({ session: "paused" }, ctx);
}, 60_000);

test("after the pause, xterm's scrollback keeps only what an attach replays; history keeps every row", async () => {
  await host.open({ name: "styled" }, ctx);
  const collected = nextCollection("paused");
  // Styled lines go through xterm's parser (not the plain-text fast path), so its scrollback fills.
  const r = await host.exec(
    {
      session: "styled",
      command: String.raw`seq 1 30000 | awk '{print "\033[1m" $0 "\033[0m"}'`,
      timeout_ms: 30_000,
      max_tokens: 200,
    },
    ctx,
  );
  expect(r.status).toBe("done");
  await collected;
  const em = host.manager.get("styled").emulator;
  expect(em.term.buffer.normal.length).toBe(em.rows + SCROLLBACK_KEPT_ROWS);
  const texts = em.rowsBetween(0, em.contentEndRow()).map((row) => row.text);
  const first = texts.indexOf("1");
  expect(first).toBeGreaterThanOrEqual(0);
  expect(texts.slice(first, first + 30000)).toEqual(Array.from({ length: 30000 }, (_, i) => String(i + 1)));
  await host.close({ session: "styled" }, ctx);
}, 60_000);

test("a little output never causes a collection", async () => {
  await host.open({ name: "quiet" }, ctx);
  const r = await host.exec({ session: "quiet", command: "echo hi", timeout_ms: 30_000, max_tokens: 200 }, ctx);
  expect(r.output).toBe("hi");
  // An absence needs a window: three times the pause that would have triggered one.
  await Bun.sleep(OUTPUT_PAUSE_MS * 3);
  // Only output counts here ("ended" and its second pass follow the other tests' closes).
  expect(reasons.filter((r) => r === "paused" || r === "flood")).toEqual([]);
  await host.close({ session: "quiet" }, ctx);
}, 60_000);

test("a flood collects every so many bytes while it runs, and once more after it", async () => {
  await host.open({ name: "flood" }, ctx);
  const after = nextCollection("paused", 30_000);
  // 6 MB of `yes`: about six intervals of EVERY_OUTPUT_BYTES.
  const r = await host.exec(
    { session: "flood", command: "yes | head -c 6000000", timeout_ms: 60_000, max_tokens: 200 },
    ctx,
  );
  expect(r.status).toBe("done");
  await after;
  // Not exactly six: the shell's prompt and echo count too, and the last may be pending.
  expect(reasons.filter((r) => r === "flood").length).toBeGreaterThanOrEqual(4);
  await host.close({ session: "flood" }, ctx);
}, 90_000);

test("collections during a flood keep their least interval, however fast the output", async () => {
  stop();
  floodMinIntervalMs = 60_000;
  stop = start();
  await host.open({ name: "spaced" }, ctx);
  const after = nextCollection("paused", 30_000);
  const r = await host.exec(
    { session: "spaced", command: "yes | head -c 6000000", timeout_ms: 60_000, max_tokens: 200 },
    ctx,
  );
  expect(r.status).toBe("done");
  await after;
  // Six intervals' worth of bytes, but one minute between collections: the first one only.
  expect(reasons.filter((r) => r === "flood")).toHaveLength(1);
  await host.close({ session: "spaced" }, ctx);
}, 90_000);
