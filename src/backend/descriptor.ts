/**
 * What the rest of ptyhub knows about a kind of backend (tmux's `cmd_entry` is the model: each
 * command declares its name, arguments and flags, and the dispatcher does the rest). Each kind's
 * folder exports one (src/backend/<kind>/kind.ts) and src/backend/registry/kinds.ts lists them;
 * nothing outside src/backend and src/api branches on a kind's name, it asks the descriptor.
 */
import type { SiteFiles } from "./site-files.ts";
import type { z } from "zod";
import type { Config } from "../config/config.ts";
import type { Elicit } from "../api/elicit.ts";
import type { BackendKind } from "../api/kinds.ts";
import type { openInput } from "../api/methods/open.ts";
import type { Integration, ShellFamily } from "../terminal/shell-integration.ts";
import type { Backend } from "./backend.ts";

/** term_open's parameters, as the host has validated them. */
export type OpenParams = z.output<typeof openInput>;

/** What every session that runs a program is told: the same for every kind that runs one. */
export interface ProgramSpec {
  /** A shell name (bash, zsh, …) or a command line; absent: the default or login shell. */
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  sessionId: string;
  /** The marks' nonce the shell integration is started with. */
  nonce: string;
  cols: number;
  rows: number;
}

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
  /** Its files, asked about for the guard where they are not this machine's (site-files.ts). */
  files?: SiteFiles;
}

/** A kind's open, prepared: the checks ran, nothing was reserved or started yet. */
export type PreparedOpen = (program: ProgramSpec, ctx: OpenContext) => Promise<OpenedBackend>;

export interface KindDescriptor {
  readonly name: BackendKind;
  /**
   * Its files, repositories and home are this machine's: the guard judges paths and `git status`
   * here, and `sandbox` can confine it. false: never this machine's git or paths; the guard asks the
   * far side's own files where the opened backend offers them (site-files.ts: containers, pods),
   * else judges as on an unknown host; `sandbox` is refused.
   */
  readonly hostFiles: boolean;
  /**
   * Opened through the daemon, it starts in the calling client's cwd and with its forwarded
   * environment, as it would in-process. false: the far end has its own (a remote login's).
   */
  readonly takesClientEnv: boolean;
  /** Its program is a process of this machine (a pid ptyhub can inspect and signal). */
  readonly localProcess: boolean;
  /** It starts a program (command, args, cwd, env apply); false: whatever is at the far end. */
  readonly runsProgram: boolean;
  /** No shell integration at open: term_exec installs markers once a shell answers (a serial line). */
  readonly markersOnFirstExec: boolean;
  /**
   * Checks term_open's parameters for this kind and returns how to open it: throws
   * INVALID_ARGUMENT for what the kind cannot take, before a session id is reserved.
   */
  prepare(p: OpenParams): PreparedOpen;
}

/** What a kind that runs a program on another machine is, in every respect but its name and open. */
export const ELSEWHERE: Omit<KindDescriptor, "name" | "prepare"> = {
  hostFiles: false,
  takesClientEnv: false,
  localProcess: false,
  runsProgram: true,
  markersOnFirstExec: false,
};

/** The sandbox applies where the files are this machine's; elsewhere it is refused with this. */
export function sandboxRefusal(kind: BackendKind): { message: string; hint: string } {
  return {
    message: `sandbox confines local sessions; a ${kind} session runs beyond this machine's files`,
    hint: "Drop `sandbox`, or open a local session.",
  };
}
