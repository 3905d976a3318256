/**
 * The host API as one table: each host method by name, with the zod schema of its parameters on
 * the wire (the tools' own input schemas, so the daemon checks exactly what the tools accept) and
 * of its result. The bottom of the program: it imports the method schemas and nothing above them.
 *
 * Everything that carries host calls is derived from this table: SessionHost.call(method, params)
 * reaches any method on any host (src/host/: the local host applies it, the daemon host forwards
 * it, the routing host picks by the session it names); the daemon validates every call's params
 * against `input` before its host sees them; results are checked against `output` where they
 * arrive, so their types come from here, with no casts.
 *
 * Adding a host method is one entry here plus its implementation in src/host/local-operations.ts,
 * then its tool calls `ctx.host.call("name", args, ctx)`.
 */
import { z } from "zod";
import { AppError } from "./errors.ts";
import { describeIssues } from "./issues.ts";
import { sessionId } from "./fields.ts";
import { closeInput, closeOutput } from "./methods/close.ts";
import { execInput, execOutput } from "./methods/exec.ts";
import { listOutput } from "./methods/list.ts";
import { openInput, openOutput } from "./methods/open.ts";
import { readInput, readOutput } from "./methods/read.ts";
import { resizeInput, resizeOutput } from "./methods/resize.ts";
import { typeSecretInput, typeSecretOutput } from "./methods/secret.ts";
import { sendInput, sendOutput } from "./methods/send.ts";
import { serialInput, serialOutput } from "./methods/serial.ts";
import { viewInputInput, viewInputOutput, viewScreenInput, viewScreenOutput } from "./methods/view-input.ts";
import { taskOutput, taskRefInput, taskStartInput, taskUpdateInput } from "./methods/tasks.ts";

/** Where term_exec's default session starts, sent along by the caller: its own cwd and env. */
const execDefaults = z.strictObject({
  cwd: z.string().min(1).max(4096).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

interface MethodSchemas<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
}

function method<I extends z.ZodType, O extends z.ZodType>(spec: MethodSchemas<I, O>): MethodSchemas<I, O> {
  return spec;
}

const TABLE = {
  open: method({ input: openInput, output: openOutput }),
  exec: method({ input: execInput.extend({ defaults: execDefaults.optional() }), output: execOutput }),
  send: method({ input: sendInput, output: sendOutput }),
  read: method({ input: readInput, output: readOutput }),
  list: method({ input: z.strictObject({}), output: listOutput.shape.sessions }),
  close: method({ input: closeInput, output: closeOutput }),
  resize: method({ input: resizeInput, output: resizeOutput }),
  typeSecret: method({ input: typeSecretInput, output: typeSecretOutput }),
  serial: method({ input: serialInput, output: serialOutput }),
  /** A human's keys from the MCP Apps view's take-over (term_view_input), recorded as theirs. */
  viewInput: method({ input: viewInputInput, output: viewInputOutput }),
  /** The screen once it differs from the one the MCP Apps view shows (term_view_screen). */
  viewScreen: method({ input: viewScreenInput, output: viewScreenOutput }),
  /** Whether a session exists and is alive (before asking a human for a secret). */
  check: method({ input: z.strictObject({ session: sessionId }), output: z.object({ ok: z.literal(true) }) }),
  // MCP Tasks (src/mcp/tasks/host-tasks.ts): kept by the host that runs the call, so they outlive the MCP server.
  taskStart: method({ input: taskStartInput, output: taskOutput }),
  taskGet: method({ input: taskRefInput, output: taskOutput }),
  taskUpdate: method({ input: taskUpdateInput, output: taskOutput }),
  taskCancel: method({ input: taskRefInput, output: taskOutput }),
};

type Table = typeof TABLE;
export type HostMethod = keyof Table;
/** What a caller sends (defaults may be left out). */
export type HostParams<M extends HostMethod> = z.input<Table[M]["input"]>;
/** The parameters the host gets, validated (defaults filled in). */
export type HostInput<M extends HostMethod> = z.output<Table[M]["input"]>;
/** What arrives, validated. */
export type HostResult<M extends HostMethod> = z.output<Table[M]["output"]>;

export interface HostMethodSpec<M extends HostMethod> {
  input: z.ZodType<HostInput<M>>;
  output: z.ZodType<HostResult<M>>;
}

/** The table, typed per method, so code generic in the method name keeps each method's types. */
export const HOST_API: { [M in HostMethod]: HostMethodSpec<M> } = TABLE;

export function isHostMethod(name: string): name is HostMethod {
  return Object.hasOwn(HOST_API, name);
}

/** A call's params checked against the method's input schema; INVALID_ARGUMENT, changing nothing, if they fail. */
export function parseHostParams<M extends HostMethod>(method: M, params: unknown): HostInput<M> {
  const parsed = HOST_API[method].input.safeParse(params);
  if (!parsed.success) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `invalid ${method} call: ${describeIssues(parsed.error)}`,
      "Nothing was changed; check the arguments.",
      false,
    );
  }
  return parsed.data;
}

/** A result checked against the method's output schema; INTERNAL if it does not fit (a bug or a version skew). */
export function parseHostResult<M extends HostMethod>(method: M, value: unknown, from: string): HostResult<M> {
  const r = HOST_API[method].output.safeParse(value);
  if (!r.success) {
    throw new AppError(
      "INTERNAL",
      `${from}'s ${method} result is malformed: ${describeIssues(r.error)}`,
      "The daemon and this ptyhub may be different builds: `ptyhub daemon --stop` restarts it.",
    );
  }
  return r.data;
}
