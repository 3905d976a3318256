/**
 * Drives bench/probe/session-exec.ts: ptyhub's session layer with no MCP in front of it, in its
 * own isolated process like a server. Each exec is timed inside the probe, around `host.exec`.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { isolatedEnv } from "./env.ts";
import { readLines } from "./lines.ts";
import { REPO } from "./peers.ts";
import { awaitGone, killAll, SERVER_VAR } from "./procs.ts";
import type { Timed } from "./shells.ts";

interface ProbeAnswer {
  ready?: string;
  ms?: number;
  status?: string;
  exit_code?: number | null;
  output?: string;
}

export class SessionProbe {
  private readonly lines: AsyncIterator<string>;

  private constructor(
    private readonly proc: Subprocess<"pipe", "pipe", "inherit">,
    private readonly tag: string,
  ) {
    this.lines = readLines(proc.stdout);
  }

  static async open(): Promise<SessionProbe> {
    const iso = isolatedEnv("session-probe");
    const proc = Bun.spawn(["bun", join(REPO, "bench", "probe", "session-exec.ts")], {
      cwd: iso.home,
      env: iso.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
    const probe = new SessionProbe(proc, iso.env[SERVER_VAR]!);
    const first = await probe.next();
    if (!first.ready) throw new Error(`session probe did not start: ${JSON.stringify(first)}`);
    return probe;
  }

  /** term_exec's work without MCP; correct when done, exit 0 and the last line is `lastLine`. */
  async exec(command: string, lastLine: string): Promise<Timed> {
    this.proc.stdin.write(`${command}\n`);
    this.proc.stdin.flush();
    const a = await this.next();
    const last = (a.output ?? "").split("\n").pop();
    const ok = a.status === "done" && a.exit_code === 0 && last === lastLine;
    return { ms: a.ms ?? Number.NaN, ok, detail: ok ? "" : JSON.stringify(a).slice(0, 200) };
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    const exited = await Promise.race([this.proc.exited, Bun.sleep(3000).then(() => null)]);
    if (exited === null) this.proc.kill("SIGKILL");
    killAll(await awaitGone(SERVER_VAR, this.tag, 1000));
  }

  private async next(): Promise<ProbeAnswer> {
    const r = await this.lines.next();
    if (r.done) throw new Error("session probe exited");
    return JSON.parse(r.value) as ProbeAnswer;
  }
}
