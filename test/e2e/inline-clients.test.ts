/**
 * The clients that never get MCP Tasks, as their model sees ptyhub: `claude -p` (Claude Code 2.1.330,
 * which speaks the 2026-07-28 era but does not declare the tasks extension) and `codex exec` (Codex
 * 0.169.0, in the 2025-11-25 era and, behind its flag, the 2026-07-28 one, never declaring the
 * extension either), each driven by a scripted mock model, offline. Every answer must be
 * inline and whole: a command longer than the task window still ends in one result with its exit
 * code, a timed-out one says where it keeps running and how to follow it. Needs the rigs installed
 * (test/helpers/batch-rig.ts); skipped otherwise, saying why.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type BatchClient, findBatchRig, runBatch, type WireRequest } from "../helpers/batch-rig.ts";

/** Longer than the default task window (task_inline_ms, 3000): a tasks client would get a task here. */
const LONG_COMMAND_S = 5;
/** term_exec's wait for the command that outlives it. */
const SHORT_TIMEOUT_MS = 1000;
const LATE_COMMAND_S = 4;
/** Bounds on waits that end on an event (the prompt, the command's end), never reached normally. */
const EVENT_WAIT_MS = 30_000;
/** The harness's start, the script's sleeps, and the MCP server's start on a busy machine. */
const RUN_BOUND_MS = 180_000;

const STEPS: [string, unknown][] = [
  ["term_exec", { command: "echo hi" }],
  ["term_exec", { command: "bash -c 'echo failing >&2; exit 3'" }],
  ["term_exec", { command: `sleep ${LONG_COMMAND_S}; echo BUILD-OK` }],
  ["term_exec", { command: `sleep ${LATE_COMMAND_S}; echo LATE-OK`, timeout_ms: SHORT_TIMEOUT_MS }],
  // As the timed-out result's hint says: term_read waits for the command's next output.
  ["term_read", { session: "main", wait_ms: EVENT_WAIT_MS }],
  ["term_open", { name: "py", command: "python3" }],
  ["term_send", { session: "py", text: "2+2" }],
  ["term_send", { session: "py", text: "import time; time.sleep(4); print('SLEPT')", wait_ms: EVENT_WAIT_MS }],
  ["term_read", { session: "nosuch" }],
  ["term_close", { session: "py" }],
];

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The client capabilities a 2026-07-28 request declares in its `_meta`. */
function declaredCapabilities(r: WireRequest): Record<string, unknown> | undefined {
  return r.params?._meta?.["io.modelcontextprotocol/clientCapabilities"] as Record<string, unknown> | undefined;
}

interface Variant {
  name: string;
  client: BatchClient;
  /** Arguments for the harness (run-codex.sh passes them to `codex exec`). */
  args: string[];
  /** The first request the harness sends: its protocol era. */
  era: "server/discover" | "initialize";
}

/**
 * Codex 0.169 sends its first model request without waiting for an MCP server still starting (seen
 * with a server 5 s slow to start: the model was offered no ptyhub tool); `required` makes it wait.
 * ptyhub from source starts slowly on a loaded machine, and these tests are about the results.
 */
const CODEX_WAITS_FOR_PTYHUB = ["-c", "mcp_servers.ptyhub.required=true"];

const VARIANTS: Variant[] = [
  { name: "claude -p", client: "claude-p", args: [], era: "server/discover" },
  { name: "codex exec", client: "codex", args: CODEX_WAITS_FOR_PTYHUB, era: "initialize" },
  {
    name: "codex exec, 2026-07-28 era",
    client: "codex",
    // Codex speaks the new era only behind its feature flag and with this variable in the server's env.
    args: [
      ...CODEX_WAITS_FOR_PTYHUB,
      "--enable",
      "mcp_2026_07_28",
      "-c",
      'mcp_servers.ptyhub.env={PTYHUB_PERSISTENT="0",CODEX_MCP_PROTOCOL_VERSION="2026-07-28"}',
    ],
    era: "server/discover",
  },
];

const scratches: string[] = [];
afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

for (const variant of VARIANTS) {
  const rig = findBatchRig(variant.client);
  const skip = "missing" in rig;
  if (skip) console.warn(`skipping the ${variant.name} e2e: ${rig.missing}`);

  describe.skipIf(skip)(`${variant.name}: every answer inline and whole`, () => {
    test(
      "exit codes, a long command, a timed-out one, a python REPL, an error: what the model reads",
      async () => {
        if ("missing" in rig) return;
        const dir = mkdtempSync(join(tmpdir(), `ptyhub-${variant.client}-`));
        scratches.push(dir);
        const run = await runBatch(rig, dir, STEPS, variant.args);
        const reads = run.reads;
        for (const r of reads) console.log(`${variant.name} · ${r.tool} ${JSON.stringify(r.args)}\n${r.text}\n`);
        expect(run.exitCode).toBe(0);
        // The era it spoke, and no call that declared the tasks extension: so no answer may be a task.
        expect(run.requests.find((r) => r.method)?.method).toBe(variant.era);
        const calls = run.requests.filter((r) => r.method === "tools/call");
        expect(calls.length).toBe(STEPS.length);
        for (const call of calls) {
          const extensions = declaredCapabilities(call)?.extensions as Record<string, unknown> | undefined;
          expect(extensions?.[TASKS_EXTENSION]).toBeUndefined();
        }
        expect(reads.map((r) => r.tool)).toEqual(STEPS.map(([tool]) => tool));
        const [hi, failing, long, late, follow, open, sum, slept, missing, closed] = reads;

        expect(hi!.text).toMatch(/\[done · exit 0 · \d+ ms · via shell · cwd [^\]]*\]\nhi$/);
        expect(failing!.text).toMatch(/\[done · exit 3 · [^\]]*\]\nfailing$/);
        // Inline after the whole wait, not a task (claude -p: "Unsupported result type 'task'").
        expect(long!.text).toMatch(/\[done · exit 0 · \d+ ms · via shell[^\]]*\]\nBUILD-OK$/);
        expect(long!.text).not.toMatch(/task|background/i);
        // Timed out: it says so once, names where it keeps running and how to follow it.
        expect(late!.text).toMatch(/\[still running after \d+ ms · session main · via timeout/);
        expect(late!.text).not.toMatch(/(\d+) ms · \1 ms/);
        expect(late!.text).toContain('term_read session:"main"');
        expect(follow!.text).toMatch(/^\[new · [^\]]*\]\nLATE-OK/m);
        expect(open!.text).toContain("[opened py · local · python3");
        expect(open!.text).toMatch(/>>>$/);
        expect(sum!.text).toMatch(/\[state prompt · via prompt\]\n4\n>>>$/);
        expect(slept!.text).toMatch(/\[state prompt · via prompt\]\nSLEPT\n>>>$/);
        expect(missing!.text).toContain("SESSION_NOT_FOUND: no session 'nosuch'\nhint: ");
        // Claude Code flags a failed call to its model; Codex passes only the text.
        expect(missing!.isError).toBe(variant.client === "claude-p");
        expect(closed!.text).toContain("[closed py");
      },
      RUN_BOUND_MS,
    );
  });
}
