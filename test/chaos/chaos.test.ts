/**
 * The chaos suite: seeded fuzzing of every tool and field through the real MCP SDK client (types,
 * sizes near the limits, unicode/NUL/control characters, hostile regexes), concurrent clients on
 * shared sessions checking that every output is the right one, then a daemon kill -9 and a server
 * stdin close, after which `echo ok` works and nothing is left behind. Bounded to run in well under
 * two minutes. Replay a failure with PTYHUB_CHAOS_SEED=<seed printed>; PTYHUB_CHAOS_SHOW=<tool> prints
 * that tool's error lines (to see which validations the fuzz reaches).
 *
 * Fuzzed text is only ever typed into sessions running `cat` with job-control signals ignored, never
 * into a shell: random input must not become a command line.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { ERROR_CODES } from "../../src/api/errors.ts";
import { daemonPaths } from "../../src/daemon-client/daemon-paths.ts";
import { MAX_REQUEST_BYTES } from "../../src/mcp/stdio-transport.ts";
import { daemonStatus } from "../helpers/daemon.ts";
import type { StdioMcp, ToolResult } from "../helpers/mcp-client.ts";
import { alive, waitFor } from "../helpers/wait.ts";
import { fixture, settleLeftovers } from "../daemon/helpers.ts";
import { chaosSeed, fuzzString, fuzzValue, HOSTILE_PATTERNS, Prng } from "./prng.ts";

const SEED = chaosSeed();
/** The bar: at least this many fuzzed calls. */
const FUZZ_CALLS = 1200;
const FUZZ_WORKERS = 12;
/** Clients checking exact outputs on shared sessions, and how many commands each runs. */
const CHECKERS = 3;
const CHECKS_PER_CLIENT = 15;
/** A bound on any one error's size: errors quote input only in part. */
const MAX_ERROR_JSON_CHARS = 20_000;

/** Reads and swallows typed input; ctrl+c, ctrl+\ and ctrl+z are ignored, ctrl+d restarts cat. */
const SINK = "trap '' INT QUIT TSTP; while :; do cat >/dev/null; done";
const SINKS = ["f1", "f2"];
/** A shell session for term_exec fuzzing (fuzz reaches it only quoted, see fuzzCall). */
const SHELL_FUZZ = "fz";
const VICTIMS = ["v1", "v2"];
const MODES = ["new", "screen", "diff", "history"];
const KEYS = [
  "up",
  "down",
  "escape",
  "tab",
  "f5",
  "alt+x",
  "shift+tab",
  "enter",
  "backspace",
  "ctrl+c",
  "C-c",
  "ctrl+d",
  "pagedown",
  "nokey",
  "ctrl+",
  "",
];

const fx = fixture();

function sessionArg(rng: Prng): unknown {
  return fuzzValue(rng, () =>
    rng.chance(0.7)
      ? rng.pick(SINKS)
      : rng.pick([...VICTIMS, "nope", "", "x".repeat(65), "../etc", "🙂", fuzzString(rng, 70)]),
  );
}
const small = (rng: Prng) => () => rng.int(0, 200);

/** One fuzzed call: a tool (sometimes an unknown one) and its arguments. */
function fuzzCall(rng: Prng): { tool: string; args: Record<string, unknown> } {
  const tool = rng.pick([
    "term_exec",
    "term_open",
    "term_send",
    "term_send",
    "term_read",
    "term_read",
    "term_list",
    "term_close",
    "term_resize",
    "term_secret",
    "unknown",
  ]);
  let args: Record<string, unknown>;
  switch (tool) {
    case "term_exec":
      // Always a session: an omitted one would be the default shell, and the command typed into it.
      if (rng.chance(0.6)) {
        // The shell session gets fuzz only as a quoted argument of `:` (a no-op), printable
        // characters only, so no readline binding or expansion can act on it.
        const quoted = fuzzString(rng, 50_000)
          .replace(/[\x00-\x1f\x7f]/g, "")
          .replaceAll("'", "'\\''");
        args = { session: SHELL_FUZZ, command: fuzzValue(rng, () => `: '${quoted}'`) };
      } else {
        args = { session: sessionArg(rng), command: fuzzValue(rng, () => fuzzString(rng, 100_000)) };
      }
      args.timeout_ms = fuzzValue(rng, small(rng));
      args.max_tokens = fuzzValue(rng, () => rng.int(1, 5000));
      break;
    case "term_open":
      args = {
        name: fuzzValue(rng, () => rng.pick([...VICTIMS, fuzzString(rng, 70)])),
        command: rng.pick(["cat", "true", "sleep 30", 7, "", "x".repeat(10_001)]),
        cwd: fuzzValue(rng, () => rng.pick(["/", "/nonexistent", "~", "relative/dir", fuzzString(rng, 4097)])),
        env: fuzzValue(rng, () => ({ [rng.pick(["A", "", "X".repeat(257), "PATH"])]: fuzzString(rng, 32_768) })),
        cols: fuzzValue(rng, () => rng.int(20, 500)),
        rows: fuzzValue(rng, () => rng.int(5, 200)),
        persistent: fuzzValue(rng, () => rng.chance(0.5)),
      };
      if (rng.chance(0.1)) args.ssh = { host: "127.0.0.1", port: 1, connect_timeout_s: 1 };
      if (rng.chance(0.05)) args.serial = { path: "/dev/null" };
      if (rng.chance(0.2)) args.args = fuzzValue(rng, () => [fuzzString(rng, 50)]);
      break;
    case "term_send":
      args = {
        session: sessionArg(rng),
        text: fuzzValue(rng, () => fuzzString(rng, 100_000)),
        enter: fuzzValue(rng, () => rng.chance(0.5)),
        keys: fuzzValue(rng, () => (rng.chance(0.5) ? [] : [rng.pick(KEYS)])),
        until: fuzzValue(rng, () => rng.pick(HOSTILE_PATTERNS)),
        wait_ms: fuzzValue(rng, small(rng)),
        max_tokens: fuzzValue(rng, () => rng.int(1, 5000)),
      };
      if (rng.chance(0.4)) delete args.until;
      break;
    case "term_read":
      args = {
        session: sessionArg(rng),
        mode: fuzzValue(rng, () => rng.pick(MODES)),
        from: fuzzValue(rng, () => rng.int(-50, 50)),
        to: fuzzValue(rng, () => rng.int(-50, 50)),
        until: fuzzValue(rng, () => rng.pick(HOSTILE_PATTERNS)),
        wait_ms: fuzzValue(rng, small(rng)),
        max_tokens: fuzzValue(rng, () => rng.int(1, 5000)),
      };
      if (!rng.chance(0.3)) delete args.from;
      if (!rng.chance(0.3)) delete args.to;
      if (rng.chance(0.4)) delete args.until;
      break;
    case "term_list":
      args = rng.chance(0.5) ? {} : { [fuzzString(rng, 2000)]: fuzzValue(rng, () => 1) };
      break;
    case "term_close":
      args = {
        session: fuzzValue(rng, () => rng.pick([...VICTIMS, "nope", fuzzString(rng, 70)])),
        signal: fuzzValue(rng, () => rng.pick(["TERM", "KILL", "HUP", "INT"])),
      };
      break;
    case "term_resize":
      args = {
        session: sessionArg(rng),
        cols: fuzzValue(rng, () => rng.int(20, 500)),
        rows: fuzzValue(rng, () => rng.int(5, 200)),
      };
      break;
    case "term_secret":
      args = {
        session: sessionArg(rng),
        prompt: fuzzValue(rng, () => fuzzString(rng, 500)),
        enter: fuzzValue(rng, () => true),
      };
      break;
    default:
      return { tool: fuzzString(rng, 300), args: {} };
  }
  if (rng.chance(0.1)) args[fuzzString(rng, 100_000) || "extra"] = 1;
  return { tool, args };
}

function describeCall(tool: string, args: Record<string, unknown>): string {
  const json = JSON.stringify({ tool, args });
  return json.length > 300 ? `${json.slice(0, 300)}… (${json.length} chars)` : json;
}

/** Problems found, each with what reproduces it. */
const problems: string[] = [];

async function fuzzWorker(server: StdioMcp, rng: Prng, calls: number, stats: Map<string, number>): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const { tool, args } = fuzzCall(rng);
    let r: ToolResult;
    try {
      r = await server.call(tool, args);
    } catch (err) {
      problems.push(`no answer (${(err as Error).message}) to ${describeCall(tool, args)}`);
      continue;
    }
    const code = r.isError ? String((r.data.error as { code?: unknown } | undefined)?.code) : "ok";
    const key = `${tool.startsWith("term_") ? tool : "unknown"}:${code}`;
    stats.set(key, (stats.get(key) ?? 0) + 1);
    if (r.isError && !(ERROR_CODES as readonly string[]).includes(code))
      problems.push(`unknown code ${code} for ${describeCall(tool, args)}`);
    if (r.isError && tool === process.env.PTYHUB_CHAOS_SHOW) console.log(r.text.slice(0, 160).replace(/\n.*/s, ""));
    if (code === "INTERNAL") problems.push(`INTERNAL (${r.text.slice(0, 300)}) for ${describeCall(tool, args)}`);
    if (r.isError && JSON.stringify(r).length > MAX_ERROR_JSON_CHARS)
      problems.push(`a ${JSON.stringify(r).length}-char error for ${describeCall(tool, args)}`);
  }
}

/** Runs commands with unique expected outputs on its own and on a shared session; every output must be its own. */
async function checker(server: StdioMcp, name: string): Promise<void> {
  for (let i = 0; i < CHECKS_PER_CLIENT; i++) {
    for (const session of [`own-${name}`, "shared"]) {
      const expected = `${name}-${session}-${i}-${i * 7}`;
      for (;;) {
        const r = await server.call("term_exec", {
          session,
          command: `echo ${name}-${session}-${i}-$((${i}*7))`,
          timeout_ms: 30_000,
        });
        const code = (r.data.error as { code?: string } | undefined)?.code;
        if (code === "SESSION_BUSY") {
          // A busy session: back off a moment before retrying, as an agent would.
          await Bun.sleep(5);
          continue;
        }
        if (r.isError || r.data.output !== expected || r.data.exit_code !== 0) {
          problems.push(`checker ${name} on ${session}: expected ${expected}, got ${r.text.slice(0, 300)}`);
        }
        break;
      }
    }
  }
}

describe(`chaos (seed ${SEED}; replay with PTYHUB_CHAOS_SEED=${SEED})`, () => {
  test("fuzzed calls on every tool and field, exact outputs, kill -9, stdin close, nothing left", async () => {
    const t0 = Date.now();
    const env = fx.env();
    const servers = [await fx.server(env, "a"), await fx.server(env, "b"), await fx.server(env, "c")];
    const [a, b, c] = servers as [StdioMcp, StdioMcp, StdioMcp];
    for (const s of SINKS) await a.ok("term_open", { name: s, command: "bash", args: ["-c", SINK] });
    await a.ok("term_open", { name: "shared" });
    await b.ok("term_open", { name: SHELL_FUZZ });
    for (let i = 0; i < CHECKERS; i++) await servers[i]!.ok("term_open", { name: `own-c${i}` });

    const stats = new Map<string, number>();
    const perWorker = Math.ceil(FUZZ_CALLS / FUZZ_WORKERS);
    await Promise.all([
      ...Array.from({ length: FUZZ_WORKERS }, (_, w) =>
        fuzzWorker(servers[w % servers.length]!, new Prng(SEED + w), perWorker, stats),
      ),
      ...Array.from({ length: CHECKERS }, (_, i) => checker(servers[i]!, `c${i}`)),
    ]);
    const total = [...stats.values()].reduce((x, y) => x + y, 0);
    console.log(
      `chaos seed ${SEED}: ${total} fuzzed calls in ${Date.now() - t0} ms; ` +
        `outcomes ${JSON.stringify(Object.fromEntries([...stats].sort()))}`,
    );
    expect(total).toBeGreaterThanOrEqual(1000);
    expect(problems).toEqual([]);

    // A request past the transport's limit is answered, and the server keeps serving.
    const huge = await c.call("term_list", { pad: "\0".repeat(MAX_REQUEST_BYTES / 6 + 1) });
    expect((huge.data.error as { code: string }).code).toBe("INVALID_ARGUMENT");
    expect((await c.ok("term_list")).sessions).toBeArray();

    // Faults: the daemon killed outright, then a server's stdin closed. `echo ok` works after each.
    const st = await daemonStatus(env);
    process.kill(st!.pid, "SIGKILL");
    await waitFor(() => !alive(st!.pid), 5000, "the daemon to die");
    // The call that first meets the dead daemon may report the default session lost with it.
    const first = await a.call("term_exec", { command: "echo ok" });
    if (first.isError) expect((first.data.error as { code: string }).code).toBe("DAEMON_UNAVAILABLE");
    else expect(first.data.output).toBe("ok");
    expect((await a.ok("term_exec", { command: "echo ok" })).output).toBe("ok");
    const bPid = b.pid;
    await b.close();
    await waitFor(() => !alive(bPid), 10_000, "the server whose stdin closed to exit");
    expect((await c.ok("term_exec", { command: "echo ok" })).output).toBe("ok");

    await fx.cleanup();
    expect(await settleLeftovers()).toEqual([]);
    const runtime = daemonPaths(env).dir;
    expect(existsSync(daemonPaths(env).socket)).toBe(false);
    expect(readdirSync(runtime).filter((f) => f.startsWith("started-"))).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(120_000);
  }, 180_000);
});

afterAll(fx.cleanup);
