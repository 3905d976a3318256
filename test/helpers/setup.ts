/** Preloaded by bun test (bunfig.toml): suite-wide settings. */
import { setDefaultTimeout } from "bun:test";

// Real PTYs, shells and servers on a 2-core machine: leave room, while tests wait on barriers.
setDefaultTimeout(30_000);
