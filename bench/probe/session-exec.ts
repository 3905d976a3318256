/**
 * A ptyhub session without MCP, for the latency breakdown: a LocalHost (the same session layer the
 * server and the daemon host: PTY, emulator, completion, guard, audit) in its own process, driven
 * by lines on stdin. Each line is a command; the answer is one JSON line with how long
 * `host.call("exec")` took, timed inside this process, and the result's status, exit code and output.
 */
import { loadConfig } from "../../src/config/config.ts";
import { LocalHost } from "../../src/host/local-host.ts";
import { TOOL_TASK_RUNNER } from "../../src/mcp/tasks/host-tasks.ts";
import { readLines } from "../lib/lines.ts";

const host = new LocalHost({ ...loadConfig({}, {}), shell: "/bin/bash" }, TOOL_TASK_RUNNER);
const ctx = { clientId: "bench-probe" };
const { session } = await host.call("open", {}, ctx);
process.stdout.write(`${JSON.stringify({ ready: session })}\n`);

for await (const command of readLines(Bun.stdin.stream())) {
  const t0 = performance.now();
  const r = await host.call("exec", { session, command, timeout_ms: 60_000, max_tokens: 4000 }, ctx);
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, status: r.status, exit_code: r.exit_code, output: r.output })}\n`);
}
await host.shutdown();
