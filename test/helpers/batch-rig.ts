/**
 * Real agent harnesses that never get MCP Tasks, run once over a script of tool calls: `claude -p`
 * (Claude Code 2.1.330, run-claude.sh in the clients rig) and `codex exec` (Codex 0.169.0,
 * codex-ptyhub/run-codex.sh), each against its scripted mock model, with ptyhub launched by the
 * harness over stdio. The mock logs every request, so a run yields, per scripted call, exactly the
 * text the harness handed its model. Where each rig is: $PTYHUB_CLAUDE_RIG (the clients directory)
 * and $PTYHUB_CODEX_RIG (its codex-ptyhub directory), else the shared clients directory; a rig
 * without its harness installed (`npm install` there) is unavailable and callers skip, saying why.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { quotePosix } from "../../src/terminal/shell-integration.ts";
import { freePort } from "./claude-rig.ts";

const DEFAULT_CLIENTS = "/work/shared/clients";
const REPO = join(import.meta.dir, "..", "..");

export type BatchClient = "claude-p" | "codex";

export interface BatchRig {
  client: BatchClient;
  dir: string;
  script: string;
}

const RIGS: Record<BatchClient, { env: string; fallback: string; script: string; bin: string }> = {
  "claude-p": { env: "PTYHUB_CLAUDE_RIG", fallback: DEFAULT_CLIENTS, script: "run-claude.sh", bin: "claude" },
  codex: {
    env: "PTYHUB_CODEX_RIG",
    fallback: join(DEFAULT_CLIENTS, "codex-ptyhub"),
    script: "run-codex.sh",
    bin: "codex",
  },
};

/** The installed rig for `client`, or why there is none. */
export function findBatchRig(client: BatchClient): BatchRig | { missing: string } {
  const spec = RIGS[client];
  const dir = process.env[spec.env] ?? spec.fallback;
  const script = join(dir, spec.script);
  if (!existsSync(script)) return { missing: `no rig at ${dir} (set ${spec.env} to its directory)` };
  if (!existsSync(join(dir, "node_modules", ".bin", spec.bin)))
    return { missing: `${spec.bin} is not installed in ${dir}: run \`npm install\` there` };
  // The mock models are node scripts.
  if (!Bun.which("node")) return { missing: "node is not installed" };
  return { client, dir, script };
}

/** One scripted call and what the harness handed its model for it. */
export interface ModelRead {
  tool: string;
  args: unknown;
  /** The text the model read (the harness's own wrapping included, e.g. Codex's "Wall time"). */
  text: string;
  /** Claude Code marks a failed call (is_error); Codex has no such flag, only the text. */
  isError: boolean;
}

/** One JSON-RPC message the harness sent ptyhub. */
export interface WireRequest {
  method?: string;
  params?: { name?: string; _meta?: Record<string, unknown> };
}

export interface BatchRun {
  exitCode: number;
  reads: ModelRead[];
  /** What the harness sent ptyhub, in order (its protocol era, the capabilities each call declared). */
  requests: WireRequest[];
  /** HOME, logs (mock.log, the harness's output) of the run. */
  scratch: string;
}

/** The text parts of a tool_result's or function_call_output's body, joined as the model reads them. */
function bodyText(body: unknown): string {
  if (typeof body === "string") return body;
  if (!Array.isArray(body)) return JSON.stringify(body);
  return body
    .map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : JSON.stringify(part)))
    .join("\n");
}

/** Pairs each scripted call in a mock log with the result that came back in the request after it. */
export function readsFromLog(logText: string): ModelRead[] {
  const reads: ModelRead[] = [];
  let pending: { call: string; args: unknown } | null = null;
  for (const line of logText.split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as Record<string, any>;
    if (typeof entry.call === "string") {
      // Claude Code's ToolSearch step loads the deferred MCP tools: not a call of the script.
      pending = entry.call === "ToolSearch" ? null : { call: entry.call, args: entry.input ?? entry.args };
      continue;
    }
    const result = entry.last_result ?? entry.last_output; // Anthropic tool_result | Responses output
    if (!pending || !result) continue;
    reads.push({
      tool: pending.call,
      args: pending.args,
      text: bodyText(result.content ?? result.output),
      isError: result.is_error === true,
    });
    pending = null;
  }
  return reads;
}

/**
 * The command the harness launches as its MCP server: ptyhub from this checkout, with what the
 * harness writes to it copied to `log` on the way (a harness passes its server few variables, so
 * the paths are written into the script).
 */
function tappedServer(script: string, log: string): string {
  const [tee, bun, cli] = [log, process.execPath, join(REPO, "src", "cli.ts")].map(quotePosix);
  writeFileSync(script, `#!/bin/sh\ntee -a ${tee} | ${bun} ${cli} "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

function wireRequests(log: string): WireRequest[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as WireRequest);
}

/**
 * Runs the harness over `steps` (`[tool, args]` pairs) to the end of the script, with `args` for
 * the harness itself; the harness launches ptyhub from this checkout (not persistent) and ends it
 * when it exits. Everything goes into `dir` (the caller's, existing): the rig's scratch directory
 * (HOME, logs), the server's launcher and the wire log beside it.
 */
export async function runBatch(
  rig: BatchRig,
  dir: string,
  steps: [string, unknown][],
  args: string[] = [],
): Promise<BatchRun> {
  // The rig script wipes its scratch directory first: the wire log lives beside it.
  const scratch = join(dir, "rig");
  const wire = join(dir, "wire.jsonl");
  const env = {
    ...(process.env as Record<string, string>),
    PTYHUB: REPO,
    SCRATCH: scratch,
    PORT: String(freePort()),
    STEPS_JSON: JSON.stringify(steps),
    PTYHUB_PERSISTENT: "0",
    PTYHUB_BIN: tappedServer(join(dir, "ptyhub.sh"), wire),
  };
  const p = Bun.spawn(["bash", rig.script, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const exitCode = await p.exited;
  const log = join(scratch, "mock.log");
  const reads = existsSync(log) ? readsFromLog(readFileSync(log, "utf8")) : [];
  return { exitCode, reads, requests: wireRequests(wire), scratch };
}
