/** The local kind: a program on a PTY of this machine (a ConPTY on Windows), optionally sandboxed. */
import type { KindDescriptor, OpenedBackend, OpenContext, ProgramSpec } from "../descriptor.ts";
import type { SandboxMode } from "../../api/sandbox-modes.ts";

/**
 * Loaded with the first local session, not with the list of kinds: the MCP server reads the
 * descriptors at start (which kind a term_open asks for), and a PTY is not needed to answer that.
 */
async function openLocal(
  program: ProgramSpec,
  sandbox: SandboxMode | undefined,
  ctx: OpenContext,
): Promise<OpenedBackend> {
  const { planLaunch } = await import("./launch.ts");
  const { withSandbox } = await import("./sandbox/plan.ts");
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
  const backend =
    process.platform === "win32"
      ? new (await import("./conpty/conpty-backend.ts")).ConptyBackend(options)
      : new (await import("./local-backend.ts")).LocalBackend(options);
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
  prepare: (p) => (program, ctx) => openLocal(program, p.sandbox, ctx),
};
