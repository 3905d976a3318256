/**
 * Per-test timeout of the suite. Real PTYs, shells and servers on a 2-core machine: leave room,
 * while tests wait on barriers (a test's own waits have bounds of their own).
 */
export const TEST_TIMEOUT_MS = 30_000;
