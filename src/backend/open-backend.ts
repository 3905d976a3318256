/**
 * One factory for every backend: the session manager describes what to open (a BackendSpec) and
 * gets back a running backend and what the session needs to know about it, without knowing any
 * backend's parameters. Adding a backend is one file and one member of the union.
 */
import type { Config } from "../config.ts";
import type { Elicit } from "../api/elicit.ts";
import type { RemoteProgram } from "./ssh/remote-shell.ts";
import type { Integration, ShellFamily } from "../terminal/shell-integration.ts";
import { planLaunch, validateEnv } from "./local/launch.ts";
import type { Backend, BackendKind } from "./backend.ts";
import type { SshParams } from "./ssh/ssh-backend.ts";
import { LocalBackend } from "./local/local-backend.ts";
import { ConptyBackend } from "./local/conpty/conpty-backend.ts";
import type { SerialSpec } from "./serial/settings.ts";
import type { SandboxMode } from "../api/sandbox-modes.ts";
import { withSandbox } from "./local/sandbox/plan.ts";
import type { ContainerParams } from "./container/container-params.ts";

/** What a session runs, where, and with which terminal: the same for every backend. */
export type ProgramSpec = RemoteProgram;

/** A program on a PTY of this machine. */
export interface LocalSpec extends ProgramSpec {
  kind: "local";
  /** Confine the program's writes (src/sandbox); absent or "none": not confined. */
  sandbox?: SandboxMode;
}

/** A program on a remote host, over one SSH connection. */
export interface SshSpec extends ProgramSpec {
  kind: "ssh";
  ssh: SshParams;
}

/** A serial line (src/serial): the device and its settings; no program is started. */
export interface SerialBackendSpec {
  kind: "serial";
  serial: SerialSpec;
}

/** A program in a running container, through its engine's API (src/backend/container). */
export interface ContainerSpec extends ProgramSpec {
  kind: "container";
  container: ContainerParams;
}

export type BackendSpec = LocalSpec | SshSpec | SerialBackendSpec | ContainerSpec;

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
  /** The marks' nonce when the program was started elsewhere (a remote daemon's session). */
  nonce?: string;
  /**
   * A mark (S) will say when the program itself starts: until it comes, the silence is the start-up's
   * (an SSH login, a boot script), not the program's, and a wait for its first output goes on.
   */
  startMark?: boolean;
}

export async function openBackend(spec: BackendSpec, ctx: OpenContext): Promise<OpenedBackend> {
  switch (spec.kind) {
    case "local":
      return openLocal(spec, ctx);
    case "ssh":
      return spec.ssh.remote_persist || spec.ssh.resume !== undefined
        ? openRemotePersist(spec, ctx)
        : openSsh(spec, ctx);
    case "serial":
      return openSerial(spec);
    case "container":
      return openInContainer(spec, ctx);
  }
}

function openLocal(spec: LocalSpec, ctx: OpenContext): OpenedBackend {
  const req = { command: spec.command, args: spec.args, cwd: spec.cwd, env: spec.env, defaultShell: ctx.config.shell };
  const plan = withSandbox(planLaunch(req, spec.nonce, spec.sessionId), spec.sandbox);
  const options = {
    argv: plan.argv,
    cwd: plan.cwd,
    env: plan.env,
    cols: spec.cols,
    rows: spec.rows,
    nonceInput: plan.nonceInput,
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

async function openSsh(spec: SshSpec, ctx: OpenContext): Promise<OpenedBackend> {
  // Loaded on first use: ssh2 is large, and most servers never open an SSH session.
  const { openSshBackend } = await import("./ssh/ssh-backend.ts");
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
    startMark: r.startMark,
  };
}

/** The shell lives in a ptyhub daemon on the remote host and survives dropped links (src/remote). */
async function openRemotePersist(spec: SshSpec, ctx: OpenContext): Promise<OpenedBackend> {
  const { openRemotePersist: open } = await import("./remote/remote-open.ts");
  const req = { ssh: spec.ssh, command: spec.command, args: spec.args, cwd: spec.cwd, env: validateEnv(spec.env) };
  const r = await open({ ...req, cols: spec.cols, rows: spec.rows }, { elicit: ctx.elicit, signal: ctx.signal });
  return {
    kind: "ssh",
    target: r.target,
    backend: r.backend,
    integration: r.integration,
    family: r.family,
    cwd: null,
    description: `ssh ${r.target} (remote persistent)`,
    nonce: r.nonce,
  };
}

async function openSerial(spec: SerialBackendSpec): Promise<OpenedBackend> {
  const { openSerialBackend } = await import("./serial/serial-backend.ts");
  const backend = await openSerialBackend(spec.serial);
  // No integration yet: term_exec installs markers once it finds a shell at the other end.
  return {
    kind: "serial",
    target: backend.target,
    backend,
    integration: "none",
    family: null,
    cwd: null,
    description: `serial ${backend.target}`,
  };
}

async function openInContainer(spec: ContainerSpec, ctx: OpenContext): Promise<OpenedBackend> {
  const { openContainer } = await import("./container/container-open.ts");
  const { kind: _kind, ...program } = spec;
  const r = await openContainer({ ...program, env: validateEnv(spec.env), setupTimeoutMs: ctx.config.open_timeout_ms });
  const { backend, target, integration, family, cwd, startMark, nonce, description } = r;
  return { kind: "container", target, backend, integration, family, cwd, description, startMark, nonce };
}
