/**
 * Diagnostic: where the memory goes while two sessions flood `yes`, MCP server and session daemon
 * apart, and how fast it comes back after both are interrupted.
 *
 *   bun bench/diag/flood-memory.ts [seconds=20] [persistent|inproc] [binary path]
 *   PTYHUB_DIAG_FLOOD=exec bun bench/diag/flood-memory.ts …   (flood with term_exec, as the bench)
 *
 * Drives ptyhub over stdio with the MCP SDK client (as the bench does): opens A and B, starts
 * `yes` in both with term_send, prints RSS of the server and of its daemon every second, then
 * ctrl+c in both (waiting for each prompt) and RSS 2 s and 5 s later. At idle and 5 s after, where
 * each process's PSS sits (smaps: the executable's pages, anonymous mappings by size; with
 * PTYHUB_DIAG_MAPS=1 also the daemon's anonymous mappings one by one). MIMALLOC_* and BUN_JSC_*
 * variables in the environment are passed on, to compare allocator and engine options. With PTYHUB_LOG_LEVEL=debug in
 * the environment the daemon's log lines about collections (src/session/memory.ts) are printed at the end.
 */
import { join } from "node:path";
import { McpServer, structured, type ServerSpec } from "../lib/mcp.ts";
import { processesWithEnv, pssMb, rssMb, SERVER_VAR } from "../lib/procs.ts";
import { anonMaps, formatParts, smapsParts } from "./smaps-parts.ts";

const seconds = Number(process.argv[2] ?? 20);
const inproc = process.argv[3] === "inproc";
const binary = process.argv[4] || undefined;
/** PTYHUB_DIAG_FLOOD=exec: flood with term_exec as the bench's two-flood metric does. */
const viaExec = process.env.PTYHUB_DIAG_FLOOD === "exec";
const REPO = join(import.meta.dir, "..", "..");

const spec: ServerSpec = {
  label: "ptyhub-diag",
  command: binary ?? "bun",
  args: binary ? [] : [join(REPO, "src", "cli.ts")],
  env: {
    PTYHUB_DAEMON_IDLE_MS: "60000",
    ...(inproc ? { PTYHUB_PERSISTENT: "0" } : {}),
    ...(process.env.PTYHUB_LOG_LEVEL ? { PTYHUB_LOG_LEVEL: process.env.PTYHUB_LOG_LEVEL } : {}),
    // Allocator and engine options to try (mimalloc's and JSC's): passed to the server and its daemon.
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] => /^(MIMALLOC|BUN_JSC)_/.test(e[0]) && e[1] !== undefined,
      ),
    ),
  },
  stopArgs: inproc ? undefined : ["daemon", "--stop"],
};

/** MB of the server and of its daemon, by RSS and by PSS (shared pages split between them). */
function parts(server: McpServer): { server: number; daemon: number; pss: number } {
  const pid = server.pid!;
  let daemon = 0;
  let pss = pssMb(pid) ?? 0;
  for (const p of processesWithEnv(SERVER_VAR, server.tag)) {
    if (p.pid === pid || !/ daemon$/.test(p.cmd.trim())) continue;
    daemon += rssMb(p.pid) ?? 0;
    pss += pssMb(p.pid) ?? 0;
  }
  return { server: rssMb(pid) ?? 0, daemon, pss };
}

/** Where the server's and the daemon's PSS sits (smaps), printed at idle and at the end. */
function breakdown(label: string, server: McpServer): void {
  console.log(`${label}: server  ${formatParts(smapsParts(server.pid!))}`);
  for (const p of processesWithEnv(SERVER_VAR, server.tag)) {
    if (p.pid === server.pid || !/ daemon$/.test(p.cmd.trim())) continue;
    console.log(`${label}: daemon  ${formatParts(smapsParts(p.pid))}`);
    if (process.env.PTYHUB_DIAG_MAPS) for (const m of anonMaps(p.pid)) console.log(`  ${m}`);
  }
}

const line = (label: string, server: McpServer) => {
  const p = parts(server);
  const mb = (x: number) => `${x.toFixed(1)} MB`;
  const rss = `server ${mb(p.server)}  daemon ${mb(p.daemon)}  RSS sum ${mb(p.server + p.daemon)}`;
  console.log(`${label.padEnd(14)} ${rss}  PSS sum ${mb(p.pss)}`);
  return p.server + p.daemon;
};

const { server } = await McpServer.start(spec);
try {
  await server.must("term_open", { name: "A" });
  await server.must("term_open", { name: "B" });
  await Bun.sleep(1500);
  line("idle 2 sess", server);
  breakdown("idle", server);
  // As the bench does (term_exec returning `running` when its timeout passes), or with term_send.
  const floods = viaExec
    ? ["A", "B"].map((session) =>
        server.call("term_exec", { session, command: "yes", timeout_ms: seconds * 1000 }, seconds * 1000 + 120_000),
      )
    : [];
  if (!viaExec) {
    await server.must("term_send", { session: "A", text: "yes\r", wait_ms: 0 });
    await server.must("term_send", { session: "B", text: "yes\r", wait_ms: 0 });
  }
  let peak = 0;
  let peakPss = 0;
  const t0 = performance.now();
  let next = 1000;
  const timer = setInterval(() => {
    const p = parts(server);
    peak = Math.max(peak, p.server + p.daemon);
    peakPss = Math.max(peakPss, p.pss);
    if (performance.now() - t0 >= next) {
      next += 1000;
      line(`t=${Math.round((performance.now() - t0) / 1000)}s`, server);
    }
  }, 50);
  if (viaExec) await Promise.all(floods);
  else await Bun.sleep(seconds * 1000);
  clearInterval(timer);
  console.log(`peak RSS sum ${peak.toFixed(1)} MB, PSS sum ${peakPss.toFixed(1)} MB`);
  for (const s of ["A", "B"]) {
    const r = await server.call("term_send", { session: s, keys: ["ctrl+c"], wait_ms: 30_000 }, 90_000);
    console.log(`ctrl+c ${s}: ${Math.round(r.ms)} ms, via ${String(structured(r).via)}`);
  }
  const stopped = performance.now();
  for (const at of [0, 1, 2, 5, 10]) {
    const wait = stopped + at * 1000 - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    line(`after ${at}s`, server);
    if (at === 5) breakdown("after 5s", server);
  }
  if (process.env.PTYHUB_LOG_LEVEL === "debug") {
    // The daemon logs to $XDG_STATE_HOME/ptyhub/daemon.log (the isolated state dir beside HOME).
    const log = join(server.home, "..", "state", "ptyhub", "daemon.log");
    const text = await Bun.file(log)
      .text()
      .catch(() => "");
    console.log(
      text
        .split("\n")
        .filter((l) => l.includes("[memory]"))
        .join("\n"),
    );
  }
} finally {
  await server.close();
}
