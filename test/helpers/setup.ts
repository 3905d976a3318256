/** Preloaded by bun test (bunfig.toml): suite-wide settings. */
import { setDefaultTimeout } from "bun:test";
import { TEST_TIMEOUT_MS } from "./test-timeout.ts";

// Bun 1.4.5 applies this only to the first test file of a run (a 6 s test in a second file timed
// out at 5 s): test/run.ts passes --timeout too. Kept for a bare `bun test` of one file.
setDefaultTimeout(TEST_TIMEOUT_MS);
