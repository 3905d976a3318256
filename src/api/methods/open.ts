/** term_open: what a session is opened with, and what the caller learns of it. */
import { z } from "zod";
import { MAX_SESSION_ID_CHARS, envVars, truncation, stateEnum, viaEnum } from "../fields.ts";
import { SANDBOX_MODES } from "../sandbox-modes.ts";
import { serialParams } from "./serial-params.ts";
import { containerParams } from "../../backend/container/container-params.ts";

/** term_open's `ssh` object (SPEC.md); the connection itself is src/backend/ssh/ssh-backend.ts. */
export const sshParams = z.strictObject({
  host: z
    .string()
    .min(1)
    .max(255)
    .describe(
      "Host name, IP or ~/.ssh/config alias (HostName, User, Port, IdentityFile, ProxyJump… apply); user@host and " +
        "host:port also work.",
    ),
  user: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("Remote user (default: User from ~/.ssh/config, else the local user)."),
  port: z.number().int().min(1).max(65535).optional().describe("Port (default: Port from ~/.ssh/config, else 22)."),
  identity_file: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      "Private key to try (after ssh-agent keys). Its passphrase, if any, is asked of the human, never passed here.",
    ),
  jump: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'ProxyJump: [user@]host[:port], comma-separated for several hops; overrides ~/.ssh/config; "none" disables it.',
    ),
  forward_agent: z.boolean().optional().describe("Forward the local ssh-agent to the host (default false)."),
  host_key: z
    .enum(["strict", "accept-new"])
    .optional()
    .describe(
      "strict (default): the host key must be in ~/.ssh/known_hosts. accept-new: record an unknown host's key; a " +
        "changed key is refused either way.",
    ),
  keepalive_s: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .optional()
    .describe(
      "Keepalive interval in seconds (default: ServerAliveInterval, else 10); a host silent for 4 intervals ends the " +
        "session.",
    ),
  connect_timeout_s: z
    .number()
    .int()
    .min(1)
    .max(300)
    .optional()
    .describe(
      "Bound on connecting and logging in, without time spent waiting for the human (default: ConnectTimeout, else " +
        "15).",
    ),
  remote_persist: z
    .boolean()
    .optional()
    .describe(
      "Run the shell in a ptyhub daemon on the remote host (installed there by ptyhub, no root): it survives dropped " +
        "connections; ptyhub reconnects, and what ran meanwhile is read once (default false).",
    ),
  resume: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Reattach to this remote persistent session (ids from term_list {ssh_host}), from any machine or after a " +
        "restart.",
    ),
});

export const openInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe(
      "Program or shell command line to run. Default: the user's shell, with shell integration (exact completion and " +
        "exit codes for term_exec).",
    ),
  args: z
    .array(z.string().max(10_000))
    .max(1000)
    .optional()
    .describe("When given, `command` is the executable and `args` its argv (no shell)."),
  cwd: z.string().min(1).max(4096).optional().describe("Working directory: absolute or ~-relative; must exist."),
  env: envVars.optional(),
  name: z.string().max(MAX_SESSION_ID_CHARS).optional().describe("Session id, [A-Za-z0-9._-]{1,64}; default t1, t2, …"),
  cols: z.number().int().min(20).max(500).optional().describe("Terminal width (default 120)."),
  rows: z.number().int().min(5).max(200).optional().describe("Terminal height (default 40)."),
  ssh: sshParams
    .optional()
    .describe(
      "Open over SSH: a remote login shell (or `command` on the remote host) on a PTY. Passwords and passphrases are " +
        "asked of the human, never passed as arguments.",
    ),
  serial: serialParams.optional().describe("Open a serial line (a board's or router's console)."),
  container: containerParams
    .optional()
    .describe(
      "Open inside a running container through its engine's API (Docker or Podman; no CLI needed), with shell " +
        "integration; command/args/cwd/env apply inside it.",
    ),
  persistent: z.boolean().optional().describe("Host the session so it survives MCP server restarts."),
  sandbox: z
    .enum(SANDBOX_MODES)
    .optional()
    .describe(
      "Confine a local session (default none): read-only writes only to its own temp dir ($TMPDIR); workspace also " +
        "under cwd. Enforced by the OS; reads stay allowed.",
    ),
});

export const openOutput = z.object({
  session: z.string(),
  kind: z.enum(["local", "ssh", "serial", "container"]),
  target: z.string(),
  pid: z.number().int().nullable(),
  cols: z.number().int(),
  rows: z.number().int(),
  persistent: z.boolean(),
  shell_integration: z.boolean(),
  attach: z.string().nullable(),
  state: stateEnum,
  via: viaEnum,
  output: z.string(),
  truncated: truncation,
});
