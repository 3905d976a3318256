/**
 * "Run a command in a warm shell and get its result" for each subject, with a check that the
 * result carries a correct completion signal and the command's real output.
 *
 * ptyhub: term_exec, done when shell integration reports the command's end (status done, exit
 * code, output without echo or prompt).
 * ptyai: pty_write then its wait: either settle (silence for settle_ms, its default 300 ms) or
 * wait_for (a regex over the whole screen, which also matches the echo of the typed command).
 * Neither is a completion signal; a result counts as correct only when the returned screen shows
 * the expected last output line followed by the next prompt.
 */
import { jsonText, structured, type McpServer } from "./mcp.ts";

export interface Timed {
  ms: number;
  ok: boolean;
  detail: string;
}

/** What PtyhubShell needs of a server: stdio (McpServer) or HTTP (HttpMcpServer) alike. */
export type ToolCaller = Pick<McpServer, "call" | "must">;

export class PtyhubShell {
  constructor(
    readonly server: ToolCaller,
    readonly session?: string,
  ) {}

  static async open(server: ToolCaller, name: string): Promise<PtyhubShell> {
    await server.must("term_open", { name });
    return new PtyhubShell(server, name);
  }

  /** term_exec; correct when done with exit 0 and the output's last line is `lastLine`. */
  async exec(command: string, lastLine: string, timeoutMs = 60_000): Promise<Timed> {
    const args: Record<string, unknown> = { command, timeout_ms: timeoutMs };
    if (this.session) args.session = this.session;
    const r = await this.server.call("term_exec", args, timeoutMs + 30_000);
    const s = structured(r);
    const output = typeof s.output === "string" ? s.output : "";
    const last = output.split("\n").pop() ?? "";
    const ok = !r.result.isError && s.status === "done" && s.exit_code === 0 && last === lastLine;
    return {
      ms: r.ms,
      ok,
      detail: ok
        ? ""
        : `status ${String(s.status)} exit ${String(s.exit_code)} via ${String(s.via)} last ${JSON.stringify(last.slice(-40))} ${r.result.isError ? r.text.slice(0, 200) : ""}`,
    };
  }
}

export type PtyaiMode = { settle_ms: number } | { default_settle: true } | { wait_for: string };

export function ptyaiModeLabel(m: PtyaiMode): string {
  if ("default_settle" in m) return "ptyai settle (default 300 ms)";
  if ("settle_ms" in m) return `ptyai settle_ms ${m.settle_ms}`;
  return `ptyai wait_for ${JSON.stringify(m.wait_for)}`;
}

/** ptyai's default prompt for bash as root or user: "bash-5.2# " / "bash-5.2$ " (trailing blank trimmed on its screen). */
const PROMPT_LINE = /[$#>]$/;

export class PtyaiShell {
  private constructor(
    readonly server: McpServer,
    readonly id: string,
  ) {}

  static async open(server: McpServer, opts: Record<string, unknown> = {}): Promise<PtyaiShell> {
    const r = await server.must("pty_create", { shell: "/bin/bash", ...opts });
    const id = jsonText(r).session_id;
    if (typeof id !== "string") throw new Error(`ptyai pty_create returned no session_id: ${r.text.slice(0, 200)}`);
    const sh = new PtyaiShell(server, id);
    // The first prompt: wait until the new shell has been quiet for 300 ms.
    await server.must("pty_wait", { session_id: id, settle_ms: 300, timeout_ms: 10_000, include_screen: false });
    return sh;
  }

  /** Clears the screen (untimed), so a stale screen can never pass the correctness check. */
  async clear(): Promise<void> {
    await this.server.must("pty_write", {
      session_id: this.id,
      input: "clear\r",
      settle_ms: 50,
      timeout_ms: 10_000,
      include_screen: false,
    });
  }

  waitArgs(mode: PtyaiMode, timeoutMs: number): Record<string, unknown> {
    if ("wait_for" in mode) return { wait_for: mode.wait_for, timeout_ms: timeoutMs };
    if ("settle_ms" in mode) return { settle_ms: mode.settle_ms, timeout_ms: timeoutMs };
    return { timeout_ms: timeoutMs };
  }

  /**
   * pty_write of `command` + Enter with the mode's wait. Correct when the returned screen shows
   * the typed command, later `lastLine`, and then a prompt as its last non-empty line.
   */
  async exec(command: string, lastLine: string, mode: PtyaiMode, timeoutMs = 60_000): Promise<Timed> {
    const r = await this.server.call(
      "pty_write",
      { session_id: this.id, input: command + "\r", ...this.waitArgs(mode, timeoutMs) },
      timeoutMs + 30_000,
    );
    const j = jsonText(r);
    const screen = typeof j.screen === "string" ? j.screen : "";
    const verdict = judgeScreen(screen, command, lastLine);
    return {
      ms: r.ms,
      ok: !r.result.isError && j.timed_out !== true && verdict.ok,
      detail: verdict.ok ? "" : verdict.why,
    };
  }

  /** Types without waiting. */
  async type(input: string): Promise<void> {
    await this.server.must("pty_write", { session_id: this.id, input });
  }

  async key(key: string): Promise<void> {
    await this.server.must("pty_sendkey", { session_id: this.id, key });
  }
}

/** Does a ptyai screen show `command`'s complete result: its echo, then `lastLine`, then a prompt? */
export function judgeScreen(screen: string, command: string, lastLine: string): { ok: boolean; why: string } {
  const lines = screen.split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const last = lines.length - 1;
  if (last < 1) return { ok: false, why: "screen has no output" };
  if (!PROMPT_LINE.test(lines[last]!))
    return { ok: false, why: `no prompt after the output (last line ${JSON.stringify(lines[last]!.slice(-40))})` };
  if (lines[last - 1] !== lastLine)
    return {
      ok: false,
      why: `line before the prompt is ${JSON.stringify(lines[last - 1]!.slice(-40))}, not ${JSON.stringify(lastLine)}`,
    };
  // The echo of the command must be above (long output may have scrolled it off the screen).
  const echoed = lines.slice(0, last - 1).some((l) => l.endsWith(command));
  if (!echoed && lines.length < 40) return { ok: false, why: "the command's echo is not on the screen" };
  return { ok: true, why: "" };
}
