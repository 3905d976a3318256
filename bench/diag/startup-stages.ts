/**
 * Diagnostic: where the compiled binary's start-up goes, stage by stage.
 *
 *   bun bench/diag/startup-stages.ts
 *
 * Compiles (like the real build: --compile --minify --bytecode) an entry that imports the
 * server's pieces one after another with dynamic imports and timestamps each, then runs it a few
 * times and prints the median time of each stage. Module evaluation is what a compiled binary
 * spends its cold start on before it can answer `initialize`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { median } from "../lib/stats.ts";
import { REPO, WORK } from "../lib/peers.ts";

const dir = join(WORK, "diag");
mkdirSync(dir, { recursive: true });
const src = (p: string) => relative(dir, join(REPO, "src", p));
const stages: Array<[string, string]> = [
  ["zod", `await import("zod")`],
  ["SDK types.js (the protocol's zod schemas)", `await import("@modelcontextprotocol/sdk/types.js")`],
  ["SDK Server (+ ajv)", `await import("@modelcontextprotocol/sdk/server/index.js")`],
  ["SDK stdio transport", `await import("@modelcontextprotocol/sdk/server/stdio.js")`],
  ["ptyhub tool definitions (zod)", `await import("${src("mcp/tools/index.ts")}")`],
  ["mcp/server.ts", `srv = await import("${src("mcp/server.ts")}")`],
  ["@xterm/headless", `await import("@xterm/headless")`],
  ["session stack (session/host.ts)", `await import("${src("session/host.ts")}")`],
  ["mcp/stdio.ts (daemon client, routing)", `await import("${src("mcp/stdio.ts")}")`],
  ["createMcpServer (tool schemas → JSON Schema)", `srv.createMcpServer({ host: {} })`],
];
const entry = [
  `const t = [performance.now()];`,
  `let srv;`,
  ...stages.map(([, code]) => `${code}; t.push(performance.now());`),
  `console.log(JSON.stringify(t));`,
  `process.exit(0);`,
].join("\n");
writeFileSync(join(dir, "stages.js"), entry);
const bin = join(dir, "stages");
const build = Bun.spawnSync(
  ["bun", "build", "--compile", "--minify", "--bytecode", "--format=esm", join(dir, "stages.js"), "--outfile", bin],
  { cwd: REPO, stdout: "pipe", stderr: "pipe" },
);
if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);

const RUNS = 7;
const runs: number[][] = [];
const wall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const r = Bun.spawnSync([bin], { stdout: "pipe", stderr: "inherit" });
  wall.push(performance.now() - t0);
  runs.push(JSON.parse(r.stdout.toString()) as number[]);
}
const at = (k: number) => median(runs.map((t) => t[k]!)) ?? 0;
console.log(`median of ${RUNS} runs (ms since process start)`);
console.log(`${at(0).toFixed(1).padStart(6)}  +${at(0).toFixed(1).padStart(5)}  runtime start → entry`);
stages.forEach(([name], k) =>
  console.log(
    `${at(k + 1)
      .toFixed(1)
      .padStart(6)}  +${(at(k + 1) - at(k)).toFixed(1).padStart(5)}  ${name}`,
  ),
);
console.log(`process wall time (spawn → exit) median ${(median(wall) ?? 0).toFixed(1)} ms`);
