/**
 * A pattern that makes a backtracking engine take exponential time costs linear time here: waits
 * on it end on time, and other sessions in the same process stay responsive (issue #10: one such
 * wait took `echo ok` elsewhere from 5 ms to 1.3 s, eight to 10–15 s, and waits overran wait_ms).
 */
import { afterAll, expect, test } from "bun:test";
import { ctx, defaults, newHost, sendDefaults } from "../helpers/host.ts";

const host = newHost();
afterAll(() => host.shutdown());

const HOSTILE_WAITS = 8;
const WAIT_MS = 2000;
/** Generous bounds for a loaded machine; a backtracking engine misses them by orders of magnitude. */
const OVERRUN_SLACK_MS = 2500;
const ECHO_BOUND_MS = 2500;

test("eight (a+)+$ waits on a session printing a×40! lines neither overrun nor stall other sessions", async () => {
  await host.open({ name: "spam" }, ctx);
  await host.open({ name: "calm" }, ctx);
  await host.send(
    {
      session: "spam",
      text: "while :; do printf '%s!\\n' aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; sleep 0.01; done",
      ...sendDefaults,
      wait_ms: 500,
    },
    ctx,
  );
  const waits = Array.from({ length: HOSTILE_WAITS }, async () => {
    const t0 = Date.now();
    const r = await host.read(
      { session: "spam", mode: "new", until: "(a+)+$", wait_ms: WAIT_MS, max_tokens: 200 },
      ctx,
    );
    return { via: r.via, ms: Date.now() - t0 };
  });
  const t0 = Date.now();
  const echo = await host.exec({ session: "calm", command: "echo ok", ...defaults }, ctx);
  const echoMs = Date.now() - t0;
  const results = await Promise.all(waits);
  console.log(
    `echo ok took ${echoMs} ms during ${HOSTILE_WAITS} hostile waits; ` +
      `waits took ${results.map((r) => r.ms).join(", ")} ms`,
  );
  expect(echo.output).toBe("ok");
  expect(echoMs).toBeLessThan(ECHO_BOUND_MS);
  for (const r of results) {
    expect(r.via).toBe("timeout");
    expect(r.ms).toBeLessThan(WAIT_MS + OVERRUN_SLACK_MS);
  }
  await host.send({ session: "spam", keys: ["ctrl+c"], ...sendDefaults }, ctx);
}, 60_000);
