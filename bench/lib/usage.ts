/** A server's memory and CPU as the metrics read them: a steady RSS, and CPU over a window. */
import type { McpServer } from "./mcp.ts";
import { median } from "./stats.ts";

/** RSS samples taken, and how far apart, for one steady reading. */
const STEADY_SAMPLES = 5;
const STEADY_EVERY_MS = 100;

/** The median of a few RSS readings of the server and its helpers (ptyhub's daemon), in MB. */
export async function steadyRss(server: McpServer): Promise<number | null> {
  const samples: number[] = [];
  for (let i = 0; i < STEADY_SAMPLES; i++) {
    const r = server.rssAll().total;
    if (r !== null) samples.push(r);
    await Bun.sleep(STEADY_EVERY_MS);
  }
  return median(samples);
}

/** CPU of the server and its helpers over the next `windowMs`, in % of one core (/proc counts 10 ms ticks). */
export async function cpuPercentOver(server: McpServer, windowMs: number): Promise<number | null> {
  const before = server.cpuAll();
  await Bun.sleep(windowMs); // the measured interval itself
  const after = server.cpuAll();
  return before !== null && after !== null ? ((after - before) / (windowMs / 1000)) * 100 : null;
}
