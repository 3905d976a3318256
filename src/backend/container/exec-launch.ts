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
const TERM = "TERM=xterm-256color";

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

export async function launchInContainer(engine: EngineClient, req: ExecLaunchRequest): Promise<ExecLaunch> {
  const plan = planLaunch(req);
  const user = req.user ?? req.defaultUser;
  // An exec forwards no agent; the bound applies to the setup exec below.
  const launchRequest = { ...req, agentForward: false, timeoutMs: req.setupTimeoutMs };
  const script = loginShellPrelude(user) + setupScript(launchRequest, plan.namedShell, plan.mode);
  const execOpts = { user: req.user, workdir: req.workdir };
  const setup = await runExec(engine, req.containerId, ["/bin/sh", "-c", SETUP_PROGRAM], {
    ...execOpts,
    stdin: script,
    timeoutMs: req.setupTimeoutMs,
  })
    .then((r) => {
      if (r.err.trim()) log.debug(`setup stderr: ${r.err.trim()}`);
      return parseSetupOutput(r.out);
    })
    .catch((err: Error) => {
      if (err instanceof AppError && err.code === "CONTAINER_UNAVAILABLE") throw err;
      log.warn(`container setup failed: ${err.message}`);
      return null;
    });
  const verdict = setupVerdict(plan, setup, req.cwd);
  if (verdict instanceof AppError) throw verdict;
  let program: string[];
  let boot: Omit<ExecLaunch, "execId" | "stream">;
  if (verdict === "fallback" || !setup) {
    // No mktemp or cat there (a dash-only image), or no writable temp dir: the shell as it is.
    log.warn("container setup did not run: a plain shell without shell integration");
    const shell = req.command?.trim() || "/bin/sh";
    program = [shell];
    boot = { integration: "none", family: null, startMark: false, program: shell, cwd: null };
  } else {
    const planned = planBoot(req, plan, setup);
    program = planned.argv;
    const { integration, family, startMark, cwd } = planned;
    boot = { integration, family, startMark, program: planned.program, cwd };
  }
  const cmd = ["/bin/sh", "-c", ANNOUNCE_AND_EXEC, "ptyhub-exec", ...program];
  const execId = await engine.createExec(req.containerId, { cmd, tty: true, ...execOpts, env: [TERM] });
  const stream = await engine.startExec(execId, true);
  // The size is set once the exec runs (the engine refuses it before); the shell hears SIGWINCH.
  await engine.resizeExec(execId, req.cols, req.rows).catch((err: Error) => log.debug(`resize: ${err.message}`));
  return { execId, stream, ...boot };
}
