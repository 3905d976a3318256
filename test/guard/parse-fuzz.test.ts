/**
 * The guard parses every line a model types, in the daemon's event loop: a line it cannot finish
 * would stall every session. Seeded random lines of dense shell syntax must all parse, quickly.
 * (Found by the chaos suite: a backtick inside `$(…)` inside backticks looped forever.)
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

/** Generous for 4,000 short lines (~0.1 s here); a loop forever never ends. */
const PARSE_DEADLINE_MS = 20_000;

test("the guard's parser ends on any line: seeded random shell syntax", async () => {
  for (const seed of [1, 2]) {
    const proc = Bun.spawn(["bun", join(import.meta.dir, "parse-fuzz.ts"), String(seed), "2000"], { stdout: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), PARSE_DEADLINE_MS);
    const code = await proc.exited;
    clearTimeout(timer);
    expect({ seed, code, out: (await new Response(proc.stdout).text()).trim() }).toEqual({
      seed,
      code: 0,
      out: "parsed 2000",
    });
  }
});
