import { z } from "zod";
import { defineTool } from "../tool.ts";
import { serialParams } from "../../api/serial-params.ts";
import {
  envVars,
  headerValue,
  MAX_SESSION_ID_CHARS,
  stateEnum,
  truncation,
  truncationNote,
  viaEnum,
  withOutput,
} from "../schemas.ts";
import { AppError } from "../../errors.ts";
import { SANDBOX_MODES } from "../../backend/local/sandbox/modes.ts";

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

const input = z.strictObject({
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
  persistent: z.boolean().optional().describe("Host the session so it survives MCP server restarts."),
  sandbox: z
    .enum(SANDBOX_MODES)
    .optional()
    .describe(
      "Confine a local session (default none): read-only writes only to its own temp dir ($TMPDIR); workspace also " +
        "under cwd. Enforced by the OS; reads stay allowed.",
    ),
});

const output = z.object({
  session: z.string(),
  kind: z.enum(["local", "ssh", "serial"]),
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

export const termOpen = defineTool({
  name: "term_open",
  title: "Open a terminal session",
  description:
    "Start a persistent terminal session: your shell (default), a program (python3, node, psql, vim…), or a command " +
    "line. " +
    "State (cwd, env, running programs) persists across calls. Returns once the session is ready (first prompt, or " +
    "output settled) with what it printed. " +
    "With `ssh`, the same on a remote host: one login (keys from ssh-agent or ~/.ssh; passwords and passphrases are " +
    "asked of the human), then every call rides that connection. " +
    'Unknown host keys are refused unless ssh.host_key is "accept-new". ' +
    "With `serial`, a serial line (boot logs, bootloader prompts, consoles); " +
    "term_serial changes its settings, DTR/RTS and sends a break. " +
    "You rarely need this for plain shell commands: term_exec without `session` uses a default shell session.",
  input,
  output,
  annotations: { destructiveHint: false, openWorldHint: true },
  async run(args, ctx) {
    if (args.ssh && args.sandbox && args.sandbox !== "none")
      throw new AppError(
        "INVALID_ARGUMENT",
        "sandbox confines local sessions; an ssh session runs on another host",
        "Drop `sandbox`, or open a local session.",
      );
    if (args.serial && args.sandbox && args.sandbox !== "none")
      throw new AppError(
        "INVALID_ARGUMENT",
        "sandbox confines local sessions; a serial line runs on its device",
        "Drop `sandbox`, or open a local session.",
      );
    const r = await ctx.host.open(
      {
        command: args.command,
        args: args.args,
        cwd: args.cwd,
        env: args.env,
        name: args.name,
        cols: args.cols,
        rows: args.rows,
        persistent: args.persistent,
        ssh: args.ssh,
        serial: args.serial,
        sandbox: args.sandbox,
      },
      ctx,
    );
    return r as z.infer<typeof output>;
  },
  text(r) {
    // Clients that read only the text (Claude Code, Codex) must still learn how a human can watch.
    const attach = r.attach ? ` · a human can watch: ${r.attach}` : "";
    const integration = r.shell_integration ? "shell integration" : "no shell integration";
    const header =
      `[opened ${r.session} · ${r.kind} · ${headerValue(r.target)}${r.pid ? ` · pid ${r.pid}` : ""} · ` +
      `${r.cols}x${r.rows} · ${integration} · state ${r.state} · via ${r.via}` +
      `${attach}${truncationNote(r.truncated)}]`;
    return withOutput(header, r.output);
  },
});
