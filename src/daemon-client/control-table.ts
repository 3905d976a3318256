/**
 * The daemon's own calls (not host methods): its status, stopping it, attaching a terminal to a
 * session and detaching it, and subscribing to session events. Like the host API (src/api/table.ts),
 * each is one entry with the zod schema of its params and of its result: the daemon checks the
 * params before acting, the client checks the result before its caller sees it. Objects are loose,
 * as everywhere in the protocol (src/daemon-client/protocol.ts): a newer peer may add fields.
 */
import { z } from "zod";
import { AppError } from "../api/errors.ts";
import { HUMAN_VIAS, sessionId } from "../api/fields.ts";
import { describeIssues } from "../api/issues.ts";
import { isShellFamily, type ShellFamily } from "../terminal/shell-integration.ts";

const none = z.object({});

const statusOutput = z.object({
  pid: z.number().int(),
  version: z.string(),
  protocol: z.number().int(),
  started_at: z.string(),
  uptime_ms: z.number(),
  sessions: z.number().int(),
  attached: z.number().int(),
  clients: z.number().int(),
  socket: z.string(),
  log: z.string(),
  idle_exit_ms: z.number(),
  /** The fingerprint of the settings it started with (config/config-fingerprint.ts; older daemons leave it out). */
  config: z.string().optional(),
});

const attachInput = z.object({
  session: sessionId,
  /** The human's window size; the session takes it only with `resize` (clamped to term_resize's range). */
  cols: z.number().optional(),
  rows: z.number().optional(),
  resize: z.boolean().optional(),
  /** A remote ptyhub's byte offset (src/backend/ssh/persist): raw bytes from there instead of a redrawn screen. */
  since: z.number().int().min(0).optional(),
  /** Where the human types from, as the audit trail names it (default: `ptyhub attach`). */
  via: z.enum(HUMAN_VIAS).optional(),
});

const attachOutput = z.object({
  session: z.string(),
  cols: z.number().int(),
  rows: z.number().int(),
  /** The screen redrawn as escape sequences (empty for a remote ptyhub's raw attach). */
  screen: z.string(),
  exited: z.boolean(),
  /** How an exited session ended (daemons before 0.2 leave it out). */
  exit: z.object({ exit_code: z.number().int().nullable(), reason: z.string() }).nullable().optional(),
  // With `since`: what the remote ptyhub needs to parse the bytes as the session does.
  offset: z.number().int().optional(),
  replay: z.string().optional(),
  nonce: z.string().optional(),
  integration: z.enum(["shell", "marker", "none"]).optional(),
  // The shell families of src/terminal/shells/all-shells.ts and windows-shells.ts.
  family: z.custom<ShellFamily>(isShellFamily, "a shell family").nullable().optional(),
});

const CONTROL = {
  status: { input: none, output: statusOutput },
  stop: { input: none, output: z.object({ stopping: z.literal(true), pid: z.number().int() }) },
  subscribeEvents: { input: none, output: z.object({ subscribed: z.literal(true) }) },
  attach: { input: attachInput, output: attachOutput },
  detach: { input: none, output: z.object({ alt_screen: z.boolean() }) },
};

type Control = typeof CONTROL;
export type ControlMethod = keyof Control;
export type ControlParams<M extends ControlMethod> = z.input<Control[M]["input"]>;
export type ControlInput<M extends ControlMethod> = z.output<Control[M]["input"]>;
export type ControlResult<M extends ControlMethod> = z.output<Control[M]["output"]>;
export type DaemonStatus = ControlResult<"status">;
export type AttachReply = ControlResult<"attach">;

interface ControlSpec<M extends ControlMethod> {
  input: z.ZodType<ControlInput<M>>;
  output: z.ZodType<ControlResult<M>>;
}

/** The table, typed per method, so code generic in the method name keeps each method's types. */
const CONTROL_API: { [M in ControlMethod]: ControlSpec<M> } = CONTROL;

export function isControlMethod(name: string): name is ControlMethod {
  return Object.hasOwn(CONTROL_API, name);
}

/** A control call's params, checked; INVALID_ARGUMENT, changing nothing, if they do not fit. */
export function parseControlParams<M extends ControlMethod>(method: M, params: unknown): ControlInput<M> {
  const r = CONTROL_API[method].input.safeParse(params);
  if (!r.success)
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid ${method} call: ${describeIssues(r.error)}`,
      "Nothing was changed; check the arguments.",
      false,
    );
  return r.data;
}

/** A control call's result, checked; INTERNAL if the daemon answered something else (a version skew). */
export function parseControlResult<M extends ControlMethod>(method: M, value: unknown): ControlResult<M> {
  const r = CONTROL_API[method].output.safeParse(value);
  if (!r.success)
    throw new AppError(
      "INTERNAL",
      `the daemon's ${method} result is malformed: ${describeIssues(r.error)}`,
      "The daemon and this ptyhub may be different builds: `ptyhub daemon --stop` restarts it.",
    );
  return r.data;
}
