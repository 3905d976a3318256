import { afterEach, expect, test } from "bun:test";
import {
  FLOOD_AFTER_MS,
  FLOOD_GAP_MS,
  FLOOD_PAUSE_FACTOR,
  FLOOD_SLICE_MS,
  FloodPacer,
  OTHERS_LIVE_MS,
} from "../../src/backend/local/pty/flood-pacer.ts";

// Time is passed in, so these runs are exact: a read every 1 ms, each piece parsed in 0.5 ms.
const READ_EVERY_MS = 1;
const PARSE_MS = 0.5;

const pacers: FloodPacer[] = [];
afterEach(() => {
  for (const p of pacers.splice(0)) p.dispose();
});

function pacer(): FloodPacer {
  const p = new FloodPacer();
  pacers.push(p);
  return p;
}

/** Reads back to back from `from` for `ms`; returns the pauses asked for and when reading ended. */
function flood(p: FloodPacer, from: number, ms: number, other?: FloodPacer): { pauses: number[]; end: number } {
  const pauses: number[] = [];
  let now = from;
  while (now < from + ms) {
    p.arrived(now);
    other?.arrived(now); // another session printing all along
    now += PARSE_MS;
    const pause = p.parsed(PARSE_MS, now);
    if (pause > 0) pauses.push(pause);
    now += Math.max(pause, READ_EVERY_MS - PARSE_MS);
    p.resumed(now);
  }
  return { pauses, end: now };
}

test("a flood while another session prints is paced after FLOOD_AFTER_MS, a quarter of the time", () => {
  const a = pacer();
  const b = pacer();
  const { pauses } = flood(a, 10_000, FLOOD_AFTER_MS + 200, b);
  expect(pauses.length).toBeGreaterThan(0);
  for (const pause of pauses) expect(pause).toBeCloseTo(FLOOD_SLICE_MS * FLOOD_PAUSE_FACTOR, 5);
  // None before the flood was FLOOD_AFTER_MS old: at most 200 ms of pacing, a pause per slice.
  const slices = Math.ceil(200 / READ_EVERY_MS / (FLOOD_SLICE_MS / PARSE_MS));
  expect(pauses.length).toBeLessThanOrEqual(slices);
});

test("output shorter than FLOOD_AFTER_MS, or a flood with no other session live, is never paced", () => {
  const a = pacer();
  const b = pacer();
  expect(flood(a, 10_000, FLOOD_AFTER_MS - 50, b).pauses).toEqual([]);
  const alone = pacer();
  expect(flood(alone, 50_000, FLOOD_AFTER_MS * 4).pauses).toEqual([]);
  // The other session printed, but longer ago than OTHERS_LIVE_MS.
  const quiet = pacer();
  quiet.arrived(90_000);
  expect(flood(pacer(), 90_000 + OTHERS_LIVE_MS + 1, FLOOD_AFTER_MS * 2).pauses).toEqual([]);
});

test("a gap longer than FLOOD_GAP_MS starts a new burst; a pause of the pacer's own does not", () => {
  const a = pacer();
  const b = pacer();
  const first = flood(a, 10_000, FLOOD_AFTER_MS + 100, b);
  expect(first.pauses.length).toBeGreaterThan(0);
  // Its own pauses (6 ms) stayed below FLOOD_GAP_MS, so the flood went on being paced; after a
  // real gap, the next FLOOD_AFTER_MS are read at full speed again.
  expect(FLOOD_SLICE_MS * FLOOD_PAUSE_FACTOR).toBeLessThan(FLOOD_GAP_MS);
  expect(flood(a, first.end + FLOOD_GAP_MS + 1, FLOOD_AFTER_MS - 50, b).pauses).toEqual([]);
});

test("a disposed reader no longer counts as a live session", () => {
  const a = pacer();
  const b = pacer();
  b.arrived(10_000);
  b.dispose();
  expect(flood(a, 10_000, FLOOD_AFTER_MS * 2).pauses).toEqual([]);
});
