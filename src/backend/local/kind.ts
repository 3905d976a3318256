/** The local kind: a program on a PTY of this machine (a ConPTY on Windows), optionally sandboxed. */
import type { KindDescriptor, OpenedBackend, OpenContext, ProgramSpec } from "../descriptor.ts";
import type { SandboxMode } from "../../api/sandbox-modes.ts";
import { planLaunch } from "./launch.ts";
import { LocalBackend } from "./local-backend.ts";
import { ConptyBackend } from "./conpty/conpty-backend.ts";
import { withSandbox } from "./sandbox/plan.ts";

function openLocal(program: ProgramSpec, sandbox: SandboxMode | undefined, ctx: OpenContext): OpenedBackend {
  const req = {
    command: program.command,
    args: program.args,
    cwd: program.cwd,
    env: program.env,
    defaultShell: ctx.config.shell,
  };
  const plan = withSandbox(planLaunch(req, program.nonce, program.sessionId), sandbox, program.sessionId);
  const options = {
    argv: plan.argv,
    cwd: plan.cwd,
    env: plan.env,
    cols: program.cols,
    rows: program.rows,
    nonceInput: plan.nonceInput,
    verdictChannel: plan.verdictChannel,
  };
  const backend = process.platform === "win32" ? new ConptyBackend(options) : new LocalBackend(options);
  return {
    kind: "local",
    target: plan.target,
    backend,
    integration: plan.integration,
    family: plan.family,
    cwd: plan.cwd,
    description: plan.argv.join(" "),
  };
}

export const localKind: KindDescriptor = {
  name: "local",
  hostFiles: true,
  takesClientEnv: true,
  localProcess: true,
  runsProgram: true,
  markersOnFirstExec: false,
  prepare: (p) => async (program, ctx) => openLocal(program, p.sandbox, ctx),
};
