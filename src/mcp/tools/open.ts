import { z } from "zod";
import { defineTool } from "../tool.ts";
import { stateEnum, truncation, truncationNote, viaEnum, withOutput } from "../schemas.ts";
import { AppError } from "../../errors.ts";

const input = z.strictObject({
  command: z.string().min(1).max(10_000).optional().describe("Program or shell command line to run. Default: the user's shell, with shell integration (exact completion and exit codes for term_exec)."),
  args: z.array(z.string().max(10_000)).max(1000).optional().describe("When given, `command` is the executable and `args` its argv (no shell)."),
  cwd: z.string().min(1).max(4096).optional().describe("Working directory: absolute or ~-relative; must exist."),
  env: z.record(z.string(), z.string()).optional().describe("Extra environment variables."),
  name: z.string().optional().describe("Session id, [A-Za-z0-9._-]{1,64}; default t1, t2, …"),
  cols: z.number().int().min(20).max(500).optional().describe("Terminal width (default 120)."),
  rows: z.number().int().min(5).max(200).optional().describe("Terminal height (default 40)."),
  ssh: z.record(z.string(), z.unknown()).optional().describe("Open over SSH: {host, user, port, identity_file, jump, forward_agent, host_key, keepalive_s}."),
  serial: z.record(z.string(), z.unknown()).optional().describe("Open a serial line: {path, baud, data_bits, parity, stop_bits, flow, newline}."),
  persistent: z.boolean().optional().describe("Host the session so it survives MCP server restarts."),
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
    "Start a persistent terminal session: your shell (default), a program (python3, node, psql, vim…), or a command line. " +
    "State (cwd, env, running programs) persists across calls. Returns once the session is ready (first prompt, or output settled) with what it printed. " +
    "You rarely need this for plain shell commands: term_exec without `session` uses a default shell session.",
  input,
  output,
  annotations: { destructiveHint: false, openWorldHint: true },
  async run(args, ctx) {
    if (args.ssh) throw new AppError("INVALID_ARGUMENT", "ssh sessions are not supported by this build yet", "Open a local session and run `ssh` in it with term_send, or upgrade ptyhub.");
    if (args.serial) throw new AppError("INVALID_ARGUMENT", "serial sessions are not supported by this build yet", "Open a local session and use a serial program (picocom, screen) in it, or upgrade ptyhub.");
    const r = await ctx.host.open(
      { command: args.command, args: args.args, cwd: args.cwd, env: args.env, name: args.name, cols: args.cols, rows: args.rows, persistent: args.persistent },
      ctx,
    );
    return r as z.infer<typeof output>;
  },
  text(r) {
    const header = `[opened ${r.session} · ${r.kind} · ${r.target}${r.pid ? ` · pid ${r.pid}` : ""} · ${r.cols}x${r.rows} · ${r.shell_integration ? "shell integration" : "no shell integration"} · state ${r.state}${truncationNote(r.truncated)}]`;
    return withOutput(header, r.output);
  },
});
