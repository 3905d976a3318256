/**
 * `term_exec "echo hi"` over Streamable HTTP beside stdio: the same ptyhub, the same warm default
 * session in its daemon, reached through `ptyhub serve --http` (SDK StreamableHTTPClientTransport,
 * bearer token, one POST per call answered as an SSE stream) or through the stdio server.
 * Interleaved like every timed metric.
 */
import { join } from "node:path";
import { HttpMcpServer } from "../lib/http-server.ts";
import { McpServer } from "../lib/mcp.ts";
import { REPO } from "../lib/peers.ts";
import { PtyhubShell } from "../lib/shells.ts";
import { median, fmt } from "../lib/stats.ts";
import { runInterleaved } from "../lib/interleave.ts";
import { emptyResult, type Ctx, type MetricResult, type Row } from "../lib/types.ts";

const COMMAND = "echo hi";
/**
 * What HTTP may add over stdio per call on loopback: a request, an SSE response and auth checks
 * are well under a millisecond or two each; more than this means the transport does needless work.
 */
export const TARGET_OVERHEAD_MS = 5;

export async function httpVsStdio(ctx: Ctx): Promise<MetricResult> {
  const res = emptyResult("http", "7. `echo hi` over Streamable HTTP beside stdio");
  const iterations = ctx.smoke ? 5 : 40;
  const warmup = ctx.smoke ? 2 : 5;
  let stdio: McpServer | null = null;
  let http: HttpMcpServer | null = null;
  try {
    stdio = (await McpServer.start(ctx.ptyhub)).server;
    http = await HttpMcpServer.start("ptyhub-http", join(REPO, "src", "cli.ts"), ctx.ptyhub.env);
    const row = (subject: string, note: string): Row => ({
      subject,
      unit: "ms",
      samples: [],
      correct: { ok: 0, of: 0 },
      note,
      baseline: "ptyhub term_exec (stdio)",
    });
    const stdioShell = new PtyhubShell(stdio);
    const httpShell = new PtyhubShell(http);
    const subjects = [
      {
        row: row("ptyhub term_exec (stdio)", "the stdio server an MCP client launches"),
        run: () => stdioShell.exec(COMMAND, "hi"),
      },
      {
        row: row("ptyhub term_exec (HTTP)", "ptyhub serve --http on 127.0.0.1, bearer token, SSE response"),
        run: () => httpShell.exec(COMMAND, "hi"),
      },
    ];
    await runInterleaved(subjects, {
      warmup,
      iterations,
      notes: res.notes,
      onIncorrect: (r, t) => ctx.log(`  ${r.subject}: incorrect result: ${t.detail}`),
    });
    res.tables.push({ title: "`echo hi` latency by transport", kind: "latency", rows: subjects.map((s) => s.row) });
    for (const s of subjects) {
      if (s.row.correct!.ok !== s.row.correct!.of)
        res.errors.push(`${s.row.subject} returned ${s.row.correct!.of - s.row.correct!.ok} incorrect results`);
    }
    const a = median(subjects[0]!.row.samples);
    const b = median(subjects[1]!.row.samples);
    const overhead = a !== null && b !== null ? b - a : null;
    res.checks.push({
      goal: `HTTP adds ≤ ${TARGET_OVERHEAD_MS} ms per call over stdio (medians)`,
      actual: overhead === null ? "n/a" : fmt(overhead, "ms"),
      met: overhead === null ? null : overhead <= TARGET_OVERHEAD_MS,
    });
  } finally {
    await stdio?.close();
    await http?.close();
    for (const s of [stdio, http])
      if (s && s.leftovers.length)
        res.notes.push(`${s.label} left ${s.leftovers.length} process(es) running: ${s.leftovers.join("; ")}`);
  }
  return res;
}
