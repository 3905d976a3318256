/**
 * The host API as one table: each SessionHost method by name, with the zod schema of its
 * parameters on the wire (the tools' own input schemas, so the daemon checks exactly what the
 * tools accept) and of its result (the tools' output schemas), and how it is applied to a host.
 *
 * Everything that carries host calls between processes is derived from this table: the daemon
 * validates every call's parameters against `input` before its host sees them; the daemon client
 * validates every result against `output`; SessionHost.call(method, params) reaches any method of
 * the table on any host: LocalHost applies it, DaemonHost forwards it, RoutingHost routes it by the
 * session it names (`session` in its params; none: the default host).
 *
 * Adding a host method is one entry here: its schemas and `apply` (the implementation, on the
 * LocalHost that owns the sessions), then its tool calls `ctx.host.call("name", args, ctx)`.
 * Nothing in the daemon, its client, DaemonHost or RoutingHost changes. (The older methods also
 * have named SessionHost methods, which stay for their callers.)
 */
import { z } from "zod";
import { AppError } from "./errors.ts";
import type { CallContext, LocalHost } from "./session/host.ts";
import { sessionId, viaEnum } from "./mcp/schemas.ts";
import { termOpen } from "./mcp/tools/open.ts";
import { termExec } from "./mcp/tools/exec.ts";
import { termSend } from "./mcp/tools/send.ts";
import { termRead } from "./mcp/tools/read.ts";
import { termList } from "./mcp/tools/list.ts";
import { termClose } from "./mcp/tools/close.ts";
import { termResize } from "./mcp/tools/resize.ts";
import { termSerial } from "./mcp/tools/serial.ts";
import {
  cancelTask,
  getTask,
  startTask,
  taskOutput,
  taskRefInput,
  taskStartInput,
  taskUpdateInput,
  updateTask,
} from "./mcp/tasks/host-tasks.ts";

/** Where term_exec's default session starts, sent along by the caller: its own cwd and env. */
const execDefaults = z.strictObject({
  cwd: z.string().min(1).max(4096).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/** How a send or read wait ended: every way but exec's "marker" (the tools share one enum). */
const waitVia = viaEnum.exclude(["marker"]);

/** A secret typed for term_secret: bounded like any typed text. */
const secretInput = z.strictObject({ session: sessionId, secret: z.string().max(100_000), enter: z.boolean() });

interface MethodSpec<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
  /**
   * Applies the call to a host. Its result is whatever the host returns: it is checked against
   * `output` where it arrives, by the client (the host's own types are looser than the schemas).
   */
  apply(host: LocalHost, params: z.output<I>, ctx: CallContext): Promise<unknown>;
}

function method<I extends z.ZodType, O extends z.ZodType>(spec: MethodSpec<I, O>): MethodSpec<I, O> {
  return spec;
}

const TABLE = {
  open: method({ input: termOpen.input, output: termOpen.output, apply: (h, p, ctx) => h.open(p, ctx) }),
  exec: method({
    input: termExec.input.extend({ defaults: execDefaults.optional() }),
    output: termExec.output,
    apply: (h, p, ctx) => h.exec(p, ctx),
  }),
  send: method({
    input: termSend.input,
    output: termSend.output.extend({ via: waitVia }),
    apply: (h, p, ctx) => h.send(p, ctx),
  }),
  read: method({
    input: termRead.input,
    output: termRead.output.extend({ via: waitVia.nullable() }),
    apply: (h, p, ctx) => h.read(p, ctx),
  }),
  list: method({
    input: z.strictObject({}),
    output: termList.output.shape.sessions,
    apply: (h, _p, ctx) => h.list(ctx),
  }),
  close: method({ input: termClose.input, output: termClose.output, apply: (h, p, ctx) => h.close(p, ctx) }),
  resize: method({ input: termResize.input, output: termResize.output, apply: (h, p, ctx) => h.resize(p, ctx) }),
  typeSecret: method({
    input: secretInput,
    output: z.object({ session: z.string(), sent: z.literal(true) }),
    apply: (h, p, ctx) => h.typeSecret(p, ctx),
  }),
  serial: method({
    input: termSerial.input,
    output: termSerial.output,
    apply: (h, p, ctx) => h.serial(p, ctx),
  }),
  check: method({
    input: z.strictObject({ session: sessionId }),
    output: z.object({ ok: z.literal(true) }),
    apply: (h, p, ctx) => h.check(p.session, ctx).then(() => ({ ok: true as const })),
  }),
  // MCP Tasks (src/mcp/tasks/host-tasks.ts): kept by the host that runs the call, so they outlive the MCP server.
  taskStart: method({ input: taskStartInput, output: taskOutput, apply: (h, p, ctx) => startTask(h, p, ctx) }),
  taskGet: method({ input: taskRefInput, output: taskOutput, apply: (h, p) => getTask(h, p) }),
  taskUpdate: method({ input: taskUpdateInput, output: taskOutput, apply: (h, p) => updateTask(h, p) }),
  taskCancel: method({ input: taskRefInput, output: taskOutput, apply: (h, p) => cancelTask(h, p) }),
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
  apply(host: LocalHost, params: HostInput<M>, ctx: CallContext): Promise<unknown>;
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

/** Checks a call's params, then applies it to the host that has the sessions (the daemon's dispatch). */
export async function applyHostCall<M extends HostMethod>(
  host: LocalHost,
  method: M,
  params: unknown,
  ctx: CallContext,
): Promise<unknown> {
  // async: a refusal is a rejected promise like any other failure of the call, never a throw.
  return HOST_API[method].apply(host, parseHostParams(method, params), ctx);
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

export { sessionOf } from "./host-target.ts";

/** Why a value does not fit a schema, in a few words. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`)
    .join("; ");
}
