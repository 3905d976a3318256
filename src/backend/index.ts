/**
 * One factory for every backend: the session manager describes what to open (a BackendSpec) and
 * gets back a running backend and what the session needs to know about it, without knowing any
 * backend's parameters. Adding a backend is one file and one member of the union.
 */
import type { Config } from "../config.ts";
import type { Elicit } from "../elicit.ts";
import type { RemoteProgram } from "../ssh/remote.ts";
import type { Integration, ShellFamily } from "../terminal/shell-integration.ts";
import { planLaunch, validateEnv } from "../session/launch.ts";
import type { Backend, BackendKind } from "./backend.ts";
import type { SshParams } from "./ssh.ts";
import { LocalBackend } from "./local.ts";

/** What a session runs, where, and with which terminal: the same for every backend. */
export type ProgramSpec = RemoteProgram;

/** A program on a PTY of this machine. */
export interface LocalSpec extends ProgramSpec {
  kind: "local";
}

/** A program on a remote host, over one SSH connection. */
export interface SshSpec extends ProgramSpec {
  kind: "ssh";
  ssh: SshParams;
}

export type BackendSpec = LocalSpec | SshSpec;

export interface OpenContext {
  /** Asks the human (SSH passphrases and passwords); absent when the client cannot. */
  elicit?: Elicit;
  signal?: AbortSignal;
  /** The settings backends read: the default shell, the bound on remote setup. */
  config: Pick<Config, "shell" | "open_timeout_ms">;
}

/** A started backend and what the session needs to know about it. */
export interface OpenedBackend {
  kind: BackendKind;
  target: string;
  backend: Backend;
  integration: Integration;
  family: ShellFamily | null;
  cwd: string | null;
  /** What was started, for the log: the local argv, or `ssh user@host:port`. */
  description: string;
}

export async function openBackend(spec: BackendSpec, ctx: OpenContext): Promise<OpenedBackend> {
  switch (spec.kind) {
    case "local":
      return openLocal(spec, ctx);
    case "ssh":
      return openSsh(spec, ctx);
  }
}

function openLocal(spec: LocalSpec, ctx: OpenContext): OpenedBackend {
  const req = { command: spec.command, args: spec.args, cwd: spec.cwd, env: spec.env, defaultShell: ctx.config.shell };
  const plan = planLaunch(req, spec.nonce, spec.sessionId);
  const backend = new LocalBackend({ argv: plan.argv, cwd: plan.cwd, env: plan.env, cols: spec.cols, rows: spec.rows });
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

async function openSsh(spec: SshSpec, ctx: OpenContext): Promise<OpenedBackend> {
  // Loaded on first use: ssh2 is large, and most servers never open an SSH session.
  const { openSshBackend } = await import("./ssh.ts");
  const { kind: _kind, ...program } = spec;
  const r = await openSshBackend(
    { ...program, env: validateEnv(spec.env), setupTimeoutMs: ctx.config.open_timeout_ms },
    { elicit: ctx.elicit, signal: ctx.signal },
  );
  return {
    kind: "ssh",
    target: r.target,
    backend: r.backend,
    integration: r.integration,
    family: r.family,
    cwd: r.cwd,
    description: `ssh ${r.target}`,
  };
}
