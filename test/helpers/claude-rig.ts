/**
 * Interactive Claude Code 2.1.330 (in a private tmux) against a scripted mock model, with ptyhub as
 * its only MCP server: the rig of /work/shared/clients (run-claude-interactive.sh,
 * mock-anthropic.mjs), installed by `npm install` in its directory. Where it is: $PTYHUB_CLAUDE_RIG,
 * else the shared clients directory; without an installed `claude` there, the rig is unavailable
 * and callers skip, saying why.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "./wait.ts";

const DEFAULT_RIG = "/work/shared/clients";
const REPO = join(import.meta.dir, "..", "..");

export interface Rig {
  dir: string;
  script: string;
}

/** The installed rig, or why there is none. */
export function findRig(): Rig | { missing: string } {
  const dir = process.env.PTYHUB_CLAUDE_RIG ?? DEFAULT_RIG;
  const script = join(dir, "run-claude-interactive.sh");
  if (!existsSync(script)) return { missing: `no rig at ${dir} (set PTYHUB_CLAUDE_RIG to its directory)` };
  if (!existsSync(join(dir, "node_modules", ".bin", "claude")))
    return { missing: `Claude Code is not installed in ${dir}: run \`npm install\` there` };
  if (!Bun.which("tmux")) return { missing: "tmux is not installed" };
  return { dir, script };
}

/** One request the mock model received (mock.log line). */
export interface ModelRequest {
  t: number;
  n_messages: number;
  last_msg: unknown;
  text: string;
}

/**
 * A loopback port nobody listens on now, for the mock model: a fixed one can still be held by the
 * mock of an earlier run that is exiting (or was left behind), and Claude Code would talk to it.
 */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export class RigRun {
  private constructor(
    private readonly rig: Rig,
    private readonly env: Record<string, string>,
    readonly scratch: string,
    private readonly port: string,
  ) {}

  static async start(
    rig: Rig,
    opts: { scratch: string; steps: unknown[]; env?: Record<string, string> },
  ): Promise<RigRun> {
    const port = String(freePort());
    const env = {
      ...(process.env as Record<string, string>),
      PTYHUB: REPO,
      SCRATCH: opts.scratch,
      PORT: port,
      STEPS_JSON: JSON.stringify(opts.steps),
      ...opts.env,
    };
    const run = new RigRun(rig, env, opts.scratch, port);
    const p = Bun.spawn(["bash", rig.script, "start"], { env, stdout: "pipe", stderr: "pipe" });
    const code = await p.exited;
    if (code !== 0) throw new Error(`rig start failed (${code}): ${await new Response(p.stderr).text()}`);
    return run;
  }

  /** Every model request so far, in order. */
  requests(): ModelRequest[] {
    const log = join(this.scratch, "mock.log");
    if (!existsSync(log)) return [];
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((r) => r.path === "/v1/messages")
      .map((r) => ({ t: r.t, n_messages: r.n_messages, last_msg: r.last_msg, text: JSON.stringify(r.last_msg) }));
  }

  /** The first request (at index `from` or later) whose last message matches; throws after `ms`. */
  async request(match: (r: ModelRequest) => boolean, ms: number, from = 0): Promise<ModelRequest & { index: number }> {
    const found = () => {
      const all = this.requests();
      const index = all.findIndex((r, i) => i >= from && match(r));
      return index >= 0 ? { ...all[index]!, index } : null;
    };
    return waitFor(found, ms, async () => `a model request to match; screen:\n${await this.screen()}`);
  }

  /**
   * The protocol era Claude Code settled on for ptyhub, from its debug log: "modern" (2026-07-28),
   * "legacy" (it fell back to initialize, e.g. when the server/discover answer came after its
   * probe's bound on a loaded machine), or null while it has not connected yet.
   */
  era(): "modern" | "legacy" | null {
    const log = join(this.scratch, "debug.log");
    if (!existsSync(log)) return null;
    const text = readFileSync(log, "utf8");
    if (!text.includes('MCP server "ptyhub": Successfully connected')) return null;
    return text.includes("server/discover probe after its bound") ? "legacy" : "modern";
  }

  /** The last lines of Claude Code's debug log about ptyhub or errors (for failure messages). */
  debugTail(lines = 5): string[] {
    const log = join(this.scratch, "debug.log");
    if (!existsSync(log)) return ["(no debug log: Claude Code did not start)"];
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => /MCP server "ptyhub"|\[ERROR\]/.test(l))
      .slice(-lines)
      .map((l) => l.slice(0, 300));
  }

  async screen(): Promise<string> {
    const p = Bun.spawn(["bash", this.rig.script, "screen"], { env: this.env, stdout: "pipe", stderr: "ignore" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    return out;
  }

  /** Waits until the human's screen shows `text`; throws after `ms`. */
  async screenShows(text: string, ms: number): Promise<void> {
    const shows = async () => (await this.screen()).includes(text);
    await waitFor(shows, ms, async () => `the screen to show ${JSON.stringify(text)}:\n${await this.screen()}`);
  }

  /**
   * Presses `key` until the screen no longer shows `text` (a dialog drawn before its input handler
   * is ready drops the first press); throws after `attempts` presses.
   */
  async pressUntilGone(key: string, text: string, attempts: number, perAttemptMs: number): Promise<void> {
    for (let i = 0; i < attempts; i++) {
      await this.keys(key);
      const gone = async () => !(await this.screen()).includes(text);
      if (await waitFor(gone, perAttemptMs, "").catch(() => false)) return;
    }
    throw new Error(`${key} did not close ${JSON.stringify(text)}:\n${await this.screen()}`);
  }

  /** Presses keys as the human would (tmux key names: Space, Down, Enter, …), each once drawn. */
  async keys(...names: string[]): Promise<void> {
    for (const key of names) {
      // The socket name is the rig script's: ptyhub-rig-<port>.
      const p = Bun.spawn(["tmux", "-L", `ptyhub-rig-${this.port}`, "send-keys", "-t", "claude", key], {
        stdout: "ignore",
        stderr: "ignore",
      });
      await p.exited;
    }
  }

  /** Ends Claude Code (and so the ptyhub it launched), the mock and the tmux server. */
  async stop(): Promise<void> {
    const p = Bun.spawn(["bash", this.rig.script, "stop"], { env: this.env, stdout: "ignore", stderr: "ignore" });
    await p.exited;
  }
}
