/**
 * `ptyhub attach` driven from a real PTY, as a human's terminal: the current screen is replayed
 * on attach, the human's keys reach the session (raw mode: ctrl+c goes to the program, not to
 * attach), the agent's output shows up live, ctrl+\ detaches and leaves the session running, and
 * the session keeps its size unless `--resize` is asked for. What the human sees is checked on a
 * terminal emulator fed with attach's output.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Terminal } from "@xterm/headless";
import type { Subprocess } from "bun";
import { stopDaemon } from "../helpers/daemon.ts";
import { CLI, startMcp, type Env, type StdioMcp } from "../helpers/mcp-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { runCli, settleLeftovers, testEnv } from "./helpers.ts";

/** The human's side: attach running in a PTY, its output parsed by a terminal emulator. */
class Human {
  readonly screen: Terminal;
  readonly proc: Subprocess;
  private parsed: Promise<void> = Promise.resolve();
  raw = "";

  constructor(env: Env, args: string[], cols: number, rows: number) {
    this.screen = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
    this.proc = Bun.spawn([process.execPath, CLI, "attach", ...args], {
      env,
      terminal: {
        cols,
        rows,
        data: (_t, data) => {
          const text = Buffer.from(data).toString("utf8");
          this.raw += text;
          this.parsed = this.parsed.then(() => new Promise<void>((r) => this.screen.write(text, r)));
        },
      },
    });
  }

  type(text: string): void {
    this.proc.terminal!.write(text);
  }

  /** The visible screen's rows as text. */
  async lines(): Promise<string[]> {
    await this.parsed;
    const buf = this.screen.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.screen.rows; y++) out.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? "");
    return out;
  }

  async sees(pattern: RegExp, what: string, ms = 10_000): Promise<void> {
    await waitFor(async () => pattern.test((await this.lines()).join("\n")), ms, `the human to see ${what}`);
  }

  async exited(ms = 10_000): Promise<number | null> {
    const code = await Promise.race([this.proc.exited, Bun.sleep(ms).then(() => "timeout" as const)]);
    if (code === "timeout") throw new Error("attach did not exit");
    return code;
  }
}

const servers: StdioMcp[] = [];
const envs: Env[] = [];
const humans: Human[] = [];

afterEach(async () => {
  for (const h of humans.splice(0)) if (h.proc.exitCode === null) h.proc.kill("SIGKILL");
  await Promise.allSettled(servers.splice(0).map((s) => s.close()));
  await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
});

async function setup(): Promise<{ env: Env; agent: StdioMcp }> {
  const env = testEnv();
  envs.push(env);
  const agent = await startMcp({ env: env, clientName: "agent" });
  servers.push(agent);
  return { env, agent };
}

function human(env: Env, args: string[], cols: number, rows: number): Human {
  const h = new Human(env, args, cols, rows);
  humans.push(h);
  return h;
}

async function sessionInfo(agent: StdioMcp, name: string) {
  const sessions = (await agent.ok("term_list")).sessions as Array<{
    session: string;
    attached: boolean;
    alive: boolean;
    cols: number;
    rows: number;
  }>;
  return sessions.find((s) => s.session === name)!;
}

describe("ptyhub attach", () => {
  test("replays the screen, shows live output, takes the human's keys, and ctrl+\\ detaches leaving the session running", async () => {
    const { env, agent } = await setup();
    await agent.ok("term_open", { name: "h", cols: 100, rows: 30 });
    await agent.ok("term_exec", { session: "h", command: "echo REPLAY-$((1+1))" });

    const h = human(env, ["h"], 100, 30);
    // Replay: what was on the session's screen before the human came.
    await h.sees(/^REPLAY-2$/m, "the replayed screen");
    expect((await sessionInfo(agent, "h")).attached).toBe(true);

    // The human types; the session runs it; the agent reads it too.
    h.type("echo typed-$((6*7))\r");
    await h.sees(/^typed-42$/m, "the command's output");
    const read = await agent.ok("term_read", { session: "h", wait_ms: 0 });
    expect(read.output).toContain("typed-42");

    // The agent's output shows up live on the human's screen.
    await agent.ok("term_exec", { session: "h", command: "echo from-$((100+1))-agent" });
    await h.sees(/^from-101-agent$/m, "the agent's output");

    // Raw mode: ctrl+c interrupts the session's program, attach stays.
    h.type("sleep 30\r");
    await waitFor(
      async () => (await agent.ok("term_read", { session: "h", mode: "screen" })).state === "running",
      5000,
      "sleep to run",
    );
    h.type("\x03");
    await waitFor(
      async () => (await agent.ok("term_read", { session: "h", mode: "screen" })).state === "prompt",
      5000,
      "the interrupt",
    );
    expect(h.proc.exitCode).toBe(null);
    // The human's interrupt is in the audit trail, when it happened (not held until the next Enter).
    await waitFor(
      async () => /human \(ptyhub attach\) {2}attach: "" keys ctrl\+c/.test((await runCli(env, ["log", "h"])).stdout),
      5000,
      "the ctrl+c in the trail",
    );

    // ctrl+\ detaches; the session keeps running.
    h.type("\x1c");
    expect(await h.exited()).toBe(0);
    expect(h.raw).toContain("[detached from h");
    const after = await sessionInfo(agent, "h");
    expect(after).toMatchObject({ attached: false, alive: true });
    expect((await agent.ok("term_exec", { session: "h", command: "echo still-here" })).output).toBe("still-here");
  }, 40_000);

  test("size policy: the session keeps its size; --resize makes it follow the human's window", async () => {
    const { env, agent } = await setup();
    await agent.ok("term_open", { name: "sz", cols: 120, rows: 40 });
    const h1 = human(env, ["sz"], 90, 25);
    await h1.sees(/\S/, "the replay");
    expect(await sessionInfo(agent, "sz")).toMatchObject({ cols: 120, rows: 40, attached: true });
    h1.type("\x1c");
    expect(await h1.exited()).toBe(0);

    const h2 = human(env, ["sz", "--resize"], 90, 25);
    await h2.sees(/\S/, "the replay");
    expect(await sessionInfo(agent, "sz")).toMatchObject({ cols: 90, rows: 25 });
    // The program saw the new size.
    expect((await agent.ok("term_exec", { session: "sz", command: "stty size" })).output).toBe("25 90");
    // And follows the window while attached.
    h2.proc.terminal!.resize(100, 30);
    await waitFor(async () => (await sessionInfo(agent, "sz")).cols === 100, 5000, "the session to follow the window");
    h2.type("\x1c");
    expect(await h2.exited()).toBe(0);
  }, 40_000);

  test("when the session ends, attach says so and exits; an unknown session is a clear error", async () => {
    const { env, agent } = await setup();
    await agent.ok("term_open", { name: "end" });
    const h = human(env, ["end"], 80, 24);
    await h.sees(/\S/, "the replay");
    h.type("exit 5\r");
    expect(await h.exited()).toBe(0);
    expect(h.raw).toContain("[session end ended: exited with code 5]");

    // Attaching to the ended session shows its last screen, says how it ended, and exits.
    const late = human(env, ["end"], 80, 24);
    expect(await late.exited()).toBe(0);
    expect(late.raw).toContain("[session end has ended: exited with code 5]");
    expect(late.raw).not.toContain("keeps running");

    const missing = human(env, ["nope"], 80, 24);
    expect(await missing.exited()).toBe(1);
    expect(missing.raw).toContain("SESSION_NOT_FOUND");
  }, 40_000);
});

afterAll(async () => {
  for (const h of humans.splice(0)) if (h.proc.exitCode === null) h.proc.kill("SIGKILL");
  await Promise.allSettled(servers.splice(0).map((s) => s.close()));
  await Promise.allSettled(envs.splice(0).map((e) => stopDaemon(e)));
});

test("no daemon, MCP server, shell or zombie is left behind", async () => {
  expect(await settleLeftovers()).toEqual([]);
}, 20_000);
