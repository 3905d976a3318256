/**
 * Metric 3, cold start: process spawn → initialize → tools/list answered, for the compiled
 * binary, `bun src/cli.ts`, and ptyai under node. Variants are interleaved per iteration.
 */
import { McpServer, type ServerSpec } from "../lib/mcp.ts";
import { ensureMinimalServer } from "../lib/peers.ts";
import { fmt, median, rotate } from "../lib/stats.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

/** Issue #11: the binary's cold start at most this many times a minimal compiled SDK server's. */
export const TARGET_VS_MINIMAL = 1.15;

export async function coldStart(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("coldstart", "3. Cold start: spawn → `tools/list` answered");
  const iterations = ctx.smoke ? 2 : 15;
  const variants: Array<{ spec: ServerSpec; row: Row }> = [];
  const add = (spec: ServerSpec, subject: string, note: string) =>
    variants.push({ spec, row: { subject, unit: "ms", samples: [], note, baseline: "ptyhub binary" } });
  if (ctx.binary) add(ctx.binary, "ptyhub binary", ctx.binaryHow);
  else res.notes.push("The compiled binary could not be built: only `bun src/cli.ts` was measured for ptyhub.");
  add(ctx.ptyhub, "ptyhub bun src/cli.ts", "from source");
  const minimal = ensureMinimalServer(ctx.log);
  if (minimal.ok)
    add(
      { label: "minimal-sdk", command: minimal.value, args: [] },
      "minimal SDK server (compiled)",
      "one tool, zod, McpServer + stdio: the floor",
    );
  else res.notes.push(`The minimal SDK server could not be built: ${minimal.reason}`);
  if (ctx.ptyai) add(ctx.ptyai, "ptyai (node)", "node dist/index.js");
  else res.notes.push("ptyai unavailable.");

  const leftovers: string[] = [];
  const clientMs: number[] = [];
  const once = async (v: (typeof variants)[number]): Promise<number> => {
    const { server, startupMs, clientMs: c, tools } = await McpServer.start(v.spec);
    clientMs.push(c);
    await server.close();
    leftovers.push(...server.leftovers);
    if (tools.length === 0) throw new Error(`${v.spec.label} listed no tools`);
    return startupMs;
  };
  const failed = new Set<(typeof variants)[number]>();
  const sample = async (v: (typeof variants)[number]): Promise<number | null> => {
    if (failed.has(v)) return null;
    try {
      return await once(v);
    } catch (err) {
      if (!v.row.subject.startsWith("ptyai")) throw err;
      failed.add(v);
      res.notes.push(`ptyai failed to start and was dropped: ${(err as Error).message.split("\n")[0]}`);
      return null;
    }
  };
  for (const v of variants) await sample(v); // warm the page cache: cold process, warm disk
  for (let i = 0; i < iterations; i++) {
    for (const v of rotate(variants, i)) {
      const ms = await sample(v);
      if (ms !== null) v.row.samples.push(ms);
    }
  }
  res.tables.push({
    title: "spawn → initialize → tools/list response received (SDK client over stdio)",
    kind: "latency",
    rows: variants.map((v) => v.row),
  });
  res.notes.push(
    `Timed from spawn until the tools/list response reaches the client's transport. The SDK client then spends another ${fmt(median(clientMs), "ms")} (median) parsing it and compiling the tools' output-schema validators before listTools() resolves; that is client cost and not counted.`,
  );
  if (leftovers.length) res.notes.push(`processes left after close: ${leftovers.join("; ")}`);

  const bin = variants.find((v) => v.row.subject === "ptyhub binary");
  const m = bin ? median(bin.row.samples) : null;
  const floor = median(variants.find((v) => v.row.subject === "minimal SDK server (compiled)")?.row.samples ?? []);
  res.checks.push({
    goal: `cold start of the binary ≤ ${TARGET_VS_MINIMAL}× a minimal compiled SDK server's`,
    actual: bin
      ? `${fmt(m, "ms")} vs ${fmt(floor, "ms")} (${m !== null && floor ? (m / floor).toFixed(2) : "?"}×)`
      : "binary not built",
    met: bin && floor !== null ? m !== null && m <= TARGET_VS_MINIMAL * floor : null,
  });
  if (!bin) res.errors.push("the compiled binary could not be built, so its cold start was not measured");
  return res;
}
