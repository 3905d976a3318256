/**
 * The ssh kind: a program on a remote host over one SSH connection, or (`remote_persist`,
 * `resume`) a session of a ptyhub daemon on that host, reached through `ptyhub bridge`.
 * Both load on first use: ssh2 is large, and most servers never open an SSH session.
 */
import {
  ELSEWHERE,
  type KindDescriptor,
  type OpenContext,
  type OpenedBackend,
  type ProgramSpec,
} from "../descriptor.ts";
import type { SshParams } from "./connect.ts";

async function openSsh(ssh: SshParams, program: ProgramSpec, ctx: OpenContext): Promise<OpenedBackend> {
  const { openSshBackend } = await import("./ssh-backend.ts");
  const { validateEnv } = await import("../local/launch.ts");
  const r = await openSshBackend(
    { ...program, ssh, env: validateEnv(program.env), setupTimeoutMs: ctx.config.open_timeout_ms },
    { elicit: ctx.elicit, signal: ctx.signal },
  );
  const { target, backend, integration, family, cwd, startMark } = r;
  return { kind: "ssh", target, backend, integration, family, cwd, description: `ssh ${target}`, startMark };
}

/** The shell lives in a ptyhub daemon on the remote host and survives dropped links (./persist). */
async function openPersistent(ssh: SshParams, program: ProgramSpec, ctx: OpenContext): Promise<OpenedBackend> {
  const { openRemotePersist } = await import("./persist/remote-open.ts");
  const { validateEnv } = await import("../local/launch.ts");
  const req = { ssh, command: program.command, args: program.args, cwd: program.cwd, env: validateEnv(program.env) };
  const r = await openRemotePersist(
    { ...req, cols: program.cols, rows: program.rows },
    { elicit: ctx.elicit, signal: ctx.signal },
  );
  const { target, backend, integration, family, nonce } = r;
  const description = `ssh ${target} (remote persistent)`;
  return { kind: "ssh", target, backend, integration, family, cwd: null, description, nonce };
}

export const sshKind: KindDescriptor = {
  name: "ssh",
  // Its program runs elsewhere: the guard judges paths as on another host, and `sandbox` is refused.
  ...ELSEWHERE,
  prepare(p) {
    const ssh = p.ssh;
    if (ssh === undefined) throw new Error("the ssh kind opened without `ssh`");
    const persistent = ssh.remote_persist || ssh.resume !== undefined;
    return (program, ctx) => (persistent ? openPersistent(ssh, program, ctx) : openSsh(ssh, program, ctx));
  },
};
