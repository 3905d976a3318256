/**
 * Giving memory back when sessions end and when a flood of output is over. A flood leaves
 * hundreds of MB of garbage (parsed rows, rendered strings) that the engine's collector frees
 * lazily: measured here, four sessions flooding for 8 s took RSS from 53 MB to 1.1 GB, still 499 MB
 * a second after they closed, and 69 MB right after one full collection. So once sessions close
 * or exit (the moment their buffers become garbage) a full collection runs, debounced so that
 * closing many sessions costs one collection.
 *
 * Output itself is the other trigger. Nothing else allocates in a quiet process, so the engine
 * never collects after a flood stops: the garbage of the last seconds stays (measured, a daemon
 * with two sessions stayed at 85 MB after two `yes` floods against 59 MB before them). So a
 * collection runs once output has paused after a lot of it, and, while a flood goes on, after
 * every COLLECT_EVERY_OUTPUT_BYTES parsed, which keeps the peak down at the price of a short pause
 * now and then. Sessions that print little never cause one.
 *
 * What stays after a flood, measured in the daemon 2 s after two `yes` floods (bun:jsc heapStats,
 * a heap snapshot, Bun.unsafe.mimallocDump): it is not memory the allocator keeps free (mimalloc's
 * blocks in use match the arena's resident pages within ~2 MB, and MIMALLOC_PURGE_DELAY=0 changed
 * nothing). It is live: history (its row arrays, by design), xterm's staging scrollback filled to
 * its 1,000 rows in each session (3.3 MB for two, all of them copies of history rows), JIT code,
 * and JSC's 16 KiB blocks that the flood's survivors keep partly used (JSC does not move cells).
 * So before the collection after a pause, each session's xterm scrollback is trimmed to the rows
 * an attach replays (Emulator.trimScrollback). Measured by `bun run bench --only memory` on the
 * compiled binary: PSS 5 s after two 60 s floods 88.6 and 90.3 MB against 72.9 and 71.7 MB idle
 * (+15.7, +18.6; target ≤ +20), and 95.4 against 72.7 MB (+22.7) without this and history's
 * 32-bit offsets, in the same machine state.
 */
import type { SessionManager } from "./manager.ts";
import type { Emulator } from "../terminal/emulator.ts";
import { logger } from "../log.ts";

const log = logger("memory");

/**
 * Wait after the last session ended before collecting: long enough to batch a burst of closes
 * (closeAll, idle sweeps), short enough that memory is back before anyone looks.
 */
export const COLLECT_AFTER_END_MS = 500;

/**
 * A second collection this long after the first: what a closing session still held at the first
 * (its last reads and writes settling) is garbage by then. Measured: with one pass the daemon stayed
 * at 103 MB (from 60 before a flood) in 1 of 3 runs; the second pass brings it back.
 */
export const SECOND_COLLECT_MS = 2000;

/**
 * Output (all sessions together) after which a pause brings a collection: what a build or a long
 * listing leaves behind. Below it, a collection would cost more than the garbage it frees.
 */
export const COLLECT_AFTER_OUTPUT_BYTES = 4 * 1024 * 1024;

/** How long output must have stopped to count as a pause (a flood's chunks come microseconds apart). */
export const OUTPUT_PAUSE_MS = 500;

/**
 * While output keeps coming, a collection after this many bytes parsed (and at least
 * FLOOD_COLLECT_MIN_INTERVAL_MS after the last one). Measured, two daemon sessions flooding `yes`
 * for 20 s: peak PSS of server + daemon 128–135 MB with these collections, 146–147 MB without.
 */
export const COLLECT_EVERY_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Why a collection runs (the log says; tests count them). */
export type CollectReason = "ended" | "paused" | "flood" | "second pass";

export interface ReturnMemoryOptions {
  /** Runs one collection; the default is a full, synchronous one. Tests pass a counter. */
  collect?: (why: CollectReason) => void;
  /** Default COLLECT_AFTER_OUTPUT_BYTES. */
  afterOutputBytes?: number;
  /** Default COLLECT_EVERY_OUTPUT_BYTES. */
  everyOutputBytes?: number;
  /** Default FLOOD_COLLECT_MIN_INTERVAL_MS. */
  floodMinIntervalMs?: number;
}

/**
 * Least time between two collections during a flood: each one pauses every session (10–30 ms
 * here), so however fast output is parsed they take at most ~0.5 % of the time. Measured, another
 * session's `echo hi` p95 under a flood was 21–26 ms with them and 20–24 ms without (run-to-run noise).
 */
export const FLOOD_COLLECT_MIN_INTERVAL_MS = 5000;

/**
 * Runs a full garbage collection after sessions of `manager` close or exit, after a lot of output
 * paused, and every COLLECT_EVERY_OUTPUT_BYTES of a flood. Returns the unsubscribe.
 */
export function returnMemoryWhenSessionsEnd(manager: SessionManager, opts: ReturnMemoryOptions = {}): () => void {
  const collect = opts.collect ?? collectNow;
  const afterOutputBytes = opts.afterOutputBytes ?? COLLECT_AFTER_OUTPUT_BYTES;
  const everyOutputBytes = opts.everyOutputBytes ?? COLLECT_EVERY_OUTPUT_BYTES;
  const floodMinIntervalMs = opts.floodMinIntervalMs ?? FLOOD_COLLECT_MIN_INTERVAL_MS;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const schedule = (ms: number, then: () => void) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(then, ms);
    // Never the reason a process stays alive.
    timer.unref?.();
  };
  const collectTwice = (why: CollectReason) => {
    collect(why);
    schedule(SECOND_COLLECT_MS, () => collect("second pass"));
  };

  // The sessions whose output is tapped, with the untap (their emulators' scrollback is trimmed after a pause).
  const open = new Map<string, { emulator: Emulator; untap: () => void }>();
  // Output since the last collection after a pause, and since the last one during a flood (a flood's
  // collections leave the garbage of its last seconds, which the one after the pause frees); and a
  // pause detector armed only while output flows.
  let sincePause = 0;
  let sinceFlood = 0;
  let lastOutputAt = 0;
  let lastFloodCollectAt = Number.NEGATIVE_INFINITY;
  let pauseTimer: ReturnType<typeof setTimeout> | null = null;
  const checkPause = () => {
    pauseTimer = null;
    const quietFor = performance.now() - lastOutputAt;
    if (quietFor < OUTPUT_PAUSE_MS) return armPause(OUTPUT_PAUSE_MS - quietFor);
    if (sincePause < afterOutputBytes) return;
    sincePause = 0;
    sinceFlood = 0;
    // Before the collection, so that what the trims free is collected with the rest.
    for (const session of open.values()) session.emulator.trimScrollback();
    collectTwice("paused");
  };
  const armPause = (ms: number) => {
    pauseTimer = setTimeout(checkPause, ms);
    pauseTimer.unref?.();
  };
  const onOutput = (data: Uint8Array) => {
    sincePause += data.length;
    sinceFlood += data.length;
    lastOutputAt = performance.now();
    if (!pauseTimer) armPause(OUTPUT_PAUSE_MS);
    if (sinceFlood >= everyOutputBytes && lastOutputAt - lastFloodCollectAt >= floodMinIntervalMs) {
      // Not inside the parse of this chunk: on the next turn of the event loop.
      sinceFlood = 0;
      lastFloodCollectAt = lastOutputAt;
      setImmediate(() => collect("flood"));
    }
  };

  const off = manager.onSessionEvent((event) => {
    if (event.kind === "opened") {
      const session = manager.get(event.session);
      open.set(event.session, { emulator: session.emulator, untap: session.tapOutput(onOutput) });
      return;
    }
    if (event.kind !== "closed" && event.kind !== "exited") return;
    open.get(event.session)?.untap();
    open.delete(event.session);
    schedule(COLLECT_AFTER_END_MS, () => collectTwice("ended"));
  });
  return () => {
    off();
    for (const session of open.values()) session.untap();
    open.clear();
    if (timer) clearTimeout(timer);
    if (pauseTimer) clearTimeout(pauseTimer);
  };
}

/** A full, synchronous collection, logged with what it gave back. */
function collectNow(why: CollectReason): void {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  Bun.gc(true);
  const after = process.memoryUsage().rss;
  log.debug(`collected (${why}): rss ${mib(before)} → ${mib(after)} MiB in ${Math.round(performance.now() - t0)} ms`);
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
