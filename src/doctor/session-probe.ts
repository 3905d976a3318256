/**
 * Starting a short-lived session the way term_open does (SessionManager: the real PTY code, launch
 * plan and shell integration) and running one command in it the way term_exec does, without the
 * guard and audit trail: doctor's typed lines are its own, not an agent's. Each probe has its own
 * manager, closed before it returns, so nothing it starts outlives it.
 */
import { defaultConfig } from "../host/config-gate.ts";
import { SessionManager } from "../session/manager.ts";
import { execCommand } from "../session/exec.ts";

/** How long one probe may wait for a prompt or a command: a shell that takes longer is not healthy. */
export const PROBE_TIMEOUT_MS = 8_000;
/** The output budget of a probe's command; its output is one short line. */
const PROBE_OUTPUT_TOKENS = 200;
const PROBE_CLIENT = "doctor";
/** How often runOnPty looks whether its program has exited. */
const EXIT_POLL_MS = 20;

export interface ProgramRun {
  output: string;
  exitCode: number | null;
}

export interface ShellRun {
  /** Whether the shell's integration reported its prompt (term_open's shell_integration). */
  shellIntegration: boolean;
  /** How term_exec knew the command ended: "shell" or "marker" when the integration works. */
  via: string;
  exitCode: number | null;
  output: string;
}

function probeManager(): SessionManager {
  return new SessionManager({ ...defaultConfig(), open_timeout_ms: PROBE_TIMEOUT_MS });
}

/** Runs `command args…` on a fresh PTY (no shell) until it exits; its screen output and exit code. */
export async function runOnPty(command: string, args: string[]): Promise<ProgramRun> {
  const manager = probeManager();
  try {
    const opened = await manager.open({ command, args, persistent: false }, PROBE_CLIENT);
    const session = manager.get(opened.session);
    const deadline = Date.now() + PROBE_TIMEOUT_MS;
    while (session.exit === null && Date.now() < deadline) await Bun.sleep(EXIT_POLL_MS);
    return { output: opened.output, exitCode: session.exit?.exitCode ?? null };
  } finally {
    await manager.closeAll();
  }
}

/** Starts the shell at `shellPath` with ptyhub's integration and runs `command` at its prompt. */
export async function runInShell(shellPath: string, command: string): Promise<ShellRun> {
  const manager = probeManager();
  try {
    const opened = await manager.open({ command: shellPath, persistent: false }, PROBE_CLIENT);
    const session = manager.get(opened.session);
    const ran = await execCommand(
      session,
      { command, timeout_ms: PROBE_TIMEOUT_MS, max_tokens: PROBE_OUTPUT_TOKENS },
      PROBE_CLIENT,
    );
    return { shellIntegration: opened.shell_integration, via: ran.via, exitCode: ran.exit_code, output: ran.output };
  } finally {
    await manager.closeAll();
  }
}
