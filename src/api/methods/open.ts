/** term_open: what a session is opened with, and what the caller learns of it. */
import { z } from "zod";
import {
  MAX_SESSION_ID_CHARS,
  NO_NUL,
  NO_NUL_MESSAGE,
  envVars,
  hint,
  truncation,
  stateEnum,
  viaEnum,
} from "../fields.ts";
import { SANDBOX_MODES } from "../sandbox-modes.ts";
import { BACKEND_KINDS, KIND_PARAMS } from "../kinds.ts";

export const openInput = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(10_000)
    .regex(NO_NUL, NO_NUL_MESSAGE)
    .optional()
    .describe(
      "Program or shell command line to run. Default: the user's shell, with shell integration (exact completion and " +
        "exit codes for term_exec).",
    ),
  args: z
    .array(z.string().max(10_000).regex(NO_NUL, NO_NUL_MESSAGE))
    .max(1000)
    .optional()
    .describe("When given, `command` is the executable and `args` its argv (no shell)."),
  cwd: z
    .string()
    .min(1)
    .max(4096)
    .regex(NO_NUL, NO_NUL_MESSAGE)
    .optional()
    .describe("Working directory: absolute or ~-relative; must exist."),
  env: envVars.optional(),
  name: z.string().max(MAX_SESSION_ID_CHARS).optional().describe("Session id, [A-Za-z0-9._-]{1,64}; default t1, t2, …"),
  cols: z.number().int().min(20).max(500).optional().describe("Terminal width (default 120)."),
  rows: z.number().int().min(5).max(200).optional().describe("Terminal height (default 40)."),
  ...KIND_PARAMS,
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
  kind: z.enum(BACKEND_KINDS),
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
  /** Why it answered before the program printed anything (a silent program runs on). */
  hint,
});
