/**
 * Starting a shell (or command) in a container on a plain exec TTY, with shell integration the
 * way an SSH session gets it (src/backend/ssh/remote-shell.ts, reused, not copied): a non-TTY exec
 * runs the same setup script on its stdin, then a TTY exec runs its boot script. Two differences:
 * an exec has no login, so $SHELL is taken from the user's /etc/passwd entry first (login-shell.ts);
 * and the exec announces its pid first (pid-announce.ts), so term_close can hang up the shell's
 * whole process group from inside the container (an exec cannot be signalled through the API).
 */
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import {
  parseSetupOutput,
  planBoot,
  planLaunch,
  SETUP_PROGRAM,
  setupScript,
  setupVerdict,
} from "../ssh/remote-shell.ts";
import type { ProgramSpec } from "../descriptor.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import type { EngineClient } from "./engine-client.ts";
import type { ExecStream } from "./exec-stream.ts";
import { runExec } from "./exec-run.ts";
import { loginShellPrelude } from "./login-shell.ts";
import { ANNOUNCE_AND_EXEC } from "./pid-announce.ts";

const log = logger("container-exec");

/** ptyhub's terminal type, as its emulator understands it. */
export const TERM = "TERM=xterm-256color";

export interface ExecLaunchRequest extends ProgramSpec {
  containerId: string;
  user?: string;
  workdir?: string;
  /** The user whose login shell is looked up when no user is given: the container's default. */
  defaultUser: string;
  setupTimeoutMs: number;
}

export interface ExecLaunch {
  execId: string;
  stream: ExecStream;
  integration: Integration;
  family: ShellFamily | null;
  startMark: boolean;
  program: string;
  cwd: string | null;
}

/** What a plain exec TTY runs, planned: its argv and what the session knows of its shell. */
export interface ExecShellPlan {
  argv: string[];
  boot: Omit<ExecLaunch, "execId" | "stream">;
}

/** Runs the setup script on a non-TTY exec's stdin; its stdout (or a thrown error) is the answer. */
export type RunSetup = (script: string) => Promise<{ out: string; err: string }>;

/**
 * The argv of a plain exec TTY with shell integration, for any exec channel (a container's engine,
 * a pod's API server): the setup script runs through `runSetup`, and the argv announces the shell's
 * pid, then runs the shell booted by that setup (or as it is, where the setup could not run).
 */
export async function planExecShell(
  req: ProgramSpec & { setupTimeoutMs: number },
  user: string,
  runSetup: RunSetup,
): Promise<ExecShellPlan> {
  const plan = planLaunch(req);
  // An exec forwards no agent; the bound applies to the setup exec.
  const launchRequest = { ...req, agentForward: false, timeoutMs: req.setupTimeoutMs };
  const script = loginShellPrelude(user) + setupScript(launchRequest, plan.namedShell, plan.mode);
  const setup = await runSetup(script)
    .then((r) => {
      if (r.err.trim()) log.debug(`setup stderr: ${r.err.trim()}`);
      return parseSetupOutput(r.out);
    })
    .catch((err: Error) => {
      if (err instanceof AppError && err.code === "CONTAINER_UNAVAILABLE") throw err;
      log.warn(`exec setup failed: ${err.message}`);
      return null;
    });
  const verdict = setupVerdict(plan, setup, req.cwd);
  if (verdict instanceof AppError) throw verdict;
  let program: string[];
  let boot: ExecShellPlan["boot"];
  if (verdict === "fallback" || !setup) {
    // No mktemp or cat there (a dash-only image), or no writable temp dir: the shell as it is.
    log.warn("exec setup did not run: a plain shell without shell integration");
    const shell = req.command?.trim() || "/bin/sh";
    program = [shell];
    boot = { integration: "none", family: null, startMark: false, program: shell, cwd: null };
  } else {
    const planned = planBoot(req, plan, setup);
    program = planned.argv;
    const { integration, family, startMark, cwd } = planned;
    boot = { integration, family, startMark, program: planned.program, cwd };
  }
  return { argv: ["/bin/sh", "-c", ANNOUNCE_AND_EXEC, "ptyhub-exec", ...program], boot };
}

export async function launchInContainer(engine: EngineClient, req: ExecLaunchRequest): Promise<ExecLaunch> {
  const execOpts = { user: req.user, workdir: req.workdir };
  const { argv, boot } = await planExecShell(req, req.user ?? req.defaultUser, (script) =>
    runExec(engine, req.containerId, ["/bin/sh", "-c", SETUP_PROGRAM], {
      ...execOpts,
      stdin: script,
      timeoutMs: req.setupTimeoutMs,
    }),
  );
  const execId = await engine.createExec(req.containerId, { cmd: argv, tty: true, ...execOpts, env: [TERM] });
  const stream = await engine.startExec(execId, true);
  // The size is set once the exec runs (the engine refuses it before); the shell hears SIGWINCH.
  await engine.resizeExec(execId, req.cols, req.rows).catch((err: Error) => log.debug(`resize: ${err.message}`));
  return { execId, stream, ...boot };
}
