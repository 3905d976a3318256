/**
 * Starting a shell (or command) in a container on a plain exec TTY, with shell integration the
 * way an SSH session gets it (src/backend/ssh/remote-shell.ts, reused, not copied): a non-TTY exec
 * runs the same setup script on its stdin, then a TTY exec runs its boot script. Two differences:
 * an exec has no login, so $SHELL is taken from the user's /etc/passwd entry first (login-shell.ts);
 * and the boot's shell writes its pid beside its private dir, so term_close can hang up its whole
 * process group from inside the container (an exec cannot be signalled through the API).
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
  type RemoteProgram,
} from "../ssh/remote-shell.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import type { EngineClient } from "./engine-client.ts";
import type { ExecStream } from "./exec-stream.ts";
import { runExec } from "./exec-run.ts";
import { loginShellPrelude } from "./login-shell.ts";

const log = logger("container-exec");

/** ptyhub's terminal type, as its emulator understands it. */
const TERM = "TERM=xterm-256color";

export interface ExecLaunchRequest extends RemoteProgram {
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
  /** The file inside the container holding the shell's pid (its process group), or null. */
  pidFile: string | null;
  integration: Integration;
  family: ShellFamily | null;
  startMark: boolean;
  program: string;
  cwd: string | null;
}

/** The boot exec's shell notes its pid (= its process group: the exec is a session leader), then boots. */
const NOTE_PID_AND_BOOT = 'echo $$ > "$0.pid" && exec "$@"';

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
  let cmd: string[];
  let pidFile: string | null = null;
  let boot: Omit<ExecLaunch, "execId" | "stream" | "pidFile">;
  if (verdict === "fallback" || !setup) {
    // No mktemp or cat there (a dash-only image): the shell as it is, without integration.
    log.warn("container setup did not run: a plain shell without shell integration");
    const shell = req.command?.trim() || "/bin/sh";
    cmd = [shell];
    boot = { integration: "none", family: null, startMark: false, program: shell, cwd: null };
  } else {
    const planned = planBoot(req, plan, setup);
    pidFile = `${setup.dir}.pid`;
    cmd = ["/bin/sh", "-c", NOTE_PID_AND_BOOT, setup.dir, ...planned.argv];
    const { integration, family, startMark, program, cwd } = planned;
    boot = { integration, family, startMark, program, cwd };
  }
  const execId = await engine.createExec(req.containerId, { cmd, tty: true, ...execOpts, env: [TERM] });
  const stream = await engine.startExec(execId, true);
  // The size is set once the exec runs (the engine refuses it before); the shell hears SIGWINCH.
  await engine.resizeExec(execId, req.cols, req.rows).catch((err: Error) => log.debug(`resize: ${err.message}`));
  return { execId, stream, pidFile, ...boot };
}
