/**
 * Giving memory back when sessions end. A flood leaves hundreds of MB of garbage (parsed rows,
 * rendered strings) that the engine's collector frees lazily: measured here, four sessions
 * flooding for 8 s took RSS from 53 MB to 1.1 GB, still 499 MB a second after they closed, and
 * 69 MB right after one full collection. So once sessions close or exit (the moment their
 * buffers become garbage) a full collection runs, debounced so that closing many sessions costs
 * one collection.
 */
import type { SessionManager } from "./manager.ts";
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

/** Runs a full garbage collection after sessions of `manager` close or exit. Returns the unsubscribe. */
export function returnMemoryWhenSessionsEnd(manager: SessionManager): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const schedule = (ms: number, then: () => void) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(then, ms);
    // Never the reason a process stays alive.
    timer.unref?.();
  };
  const collect = () => {
    timer = null;
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    Bun.gc(true);
    const after = process.memoryUsage().rss;
    log.debug(
      `collected after sessions ended: rss ${mb(before)} → ${mb(after)} MB ` +
        `in ${Math.round(performance.now() - t0)} ms`,
    );
  };
  const off = manager.subscribeEvents((event) => {
    if (event.kind !== "closed" && event.kind !== "exited") return;
    schedule(COLLECT_AFTER_END_MS, () => {
      collect();
      schedule(SECOND_COLLECT_MS, collect);
    });
  });
  return () => {
    off();
    if (timer) clearTimeout(timer);
  };
}

function mb(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
