/**
 * Diagnostic: where the compiled binary's start-up goes, stage by stage.
 *
 *   bun bench/diag/startup-stages.ts [runs]
 *
 * Compiles, with the release build's own bundle options (build.ts: minify, bytecode, code
 * splitting, the stamped tools/list), a probe that walks the stdio server's start-up in the order
 * the real one does: it imports the modules of today's graph one after another (dynamic imports,
 * so each stage also pays for reading its chunk), then builds the app and the MCP server and
 * answers tools/list, with a timestamp after each stage. It runs the probe a few times and prints
 * the median time of each stage. Stages that the lazy loading keeps out of the first tools/list
 * are listed after it: what they would cost if something pulled them in early again.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { median } from "../lib/stats.ts";
import { REPO, WORK } from "../lib/peers.ts";
import { bundleOptions } from "../../build.ts";
import pkg from "../../package.json" with { type: "json" };

/** Runs of the probe; the median of each stage is printed. */
const DEFAULT_RUNS = 9;

const dir = join(WORK, "diag");
mkdirSync(dir, { recursive: true });
const src = (p: string) => relative(dir, join(REPO, "src", p));
/** [label, code]: the code runs in an async module with `app`, `srv` and `m` in scope. */
const stages: Array<[string, string]> = [
  ["zod", `await import("zod")`],
  ["SDK types.js (the protocol's zod schemas)", `await import("@modelcontextprotocol/sdk/types.js")`],
  ["SDK Server (+ ajv)", `await import("@modelcontextprotocol/sdk/server/index.js")`],
  ["config.ts (+ guard and audit settings)", `await import("${src("config.ts")}")`],
  ["mcp/server.ts", `srv = await import("${src("mcp/server.ts")}")`],
  ["app.ts (routing, daemon client)", `m = await import("${src("app.ts")}")`],
  ["mcp/stdio.ts", `await import("${src("mcp/stdio.ts")}")`],
  ["createApp()", `app = m.createApp()`],
  ["createMcpServer()", `srv = srv.createMcpServer({ host: app.host })`],
  ["tools/list answered (in process)", `await srv._requestHandlers.get("tools/list")({ method: "tools/list" }, {})`],
  ["— later: tool definitions (zod), first tools/call", `await import("${src("mcp/tools/all-tools.ts")}")`],
  ["— later: host API table", `await import("${src("host-api.ts")}")`],
  ["— later: @xterm/headless", `await import("@xterm/headless")`],
  ["— later: session stack (session/host.ts)", `await import("${src("session/host.ts")}")`],
];
const entry = [
  `const t = [performance.now()];`,
  `let srv, app, m;`,
  ...stages.map(([, code]) => `${code}; t.push(performance.now());`),
  `console.log(JSON.stringify(t));`,
  `process.exit(0);`,
].join("\n");
writeFileSync(join(dir, "stages.js"), entry);
const bin = join(dir, "stages");
const build = await Bun.build({
  entrypoints: [join(dir, "stages.js")],
  compile: { outfile: bin, autoloadDotenv: false, autoloadBunfig: false },
  ...bundleOptions(pkg.version),
  throw: false,
});
if (!build.success) throw new Error(`build failed: ${build.logs.map(String).join("\n")}`);

const runs = Number(process.argv[2] ?? DEFAULT_RUNS);
const samples: number[][] = [];
const wall: number[] = [];
const home = join(dir, "home");
mkdirSync(home, { recursive: true });
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  // A private HOME and config dir: the probe reads configuration like the server does.
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PTYHUB_PERSISTENT: "1" };
  const r = Bun.spawnSync([bin], { stdout: "pipe", stderr: "inherit", env });
  wall.push(performance.now() - t0);
  if (r.exitCode !== 0) throw new Error(`the probe exited with ${r.exitCode}`);
  samples.push(JSON.parse(r.stdout.toString()) as number[]);
}
const at = (k: number) => median(samples.map((t) => t[k]!)) ?? 0;
const col = (ms: number) => ms.toFixed(1).padStart(6);
console.log(`median of ${runs} runs (ms since process start; + the stage's own share)`);
console.log(`${col(at(0))}  +${col(at(0))}  runtime start → entry (loading the entry chunk)`);
for (const [k, [name]] of stages.entries()) console.log(`${col(at(k + 1))}  +${col(at(k + 1) - at(k))}  ${name}`);
console.log(`process wall time (spawn → exit) median ${col(median(wall) ?? 0)} ms`);
