/**
 * What each host method does on the host that owns the sessions: one entry per method of the table
 * (src/api/table.ts), applied to validated params. The local host runs these; the daemon host and
 * the routing host only carry calls to the local host that has the session.
 *
 * Each entry declares its preamble, and LocalHost.apply runs it once for all (tmux's cmd_entry is
 * the model): `check`, the arguments alone, before anything is looked up (bad input changes
 * nothing); `session`: "none", or "named" (the session the call names is looked up first:
 * SESSION_NOT_FOUND), or "alive" (it must also still run), or "or-default" (the one it names, else
 * the default session, opened on first use with the entry's `defaults`); `types`: what the call
 * types into that session, which the typing gate (src/host/gate.ts) judges and records before the
 * entry runs. The entry's `run` then gets the session.
 */
import type { CallContext } from "../api/host.ts";
import { kindDescriptor } from "../backend/registry/kinds.ts";
import type { HostInput, HostMethod, HostResult } from "../api/table.ts";
import { execCommand } from "../session/exec.ts";
import { readSession } from "../session/read.ts";
import { compileUntil, sendInput } from "../session/send.ts";
import type { Session } from "../session/session.ts";
import { encodeKeys } from "../terminal/keys.ts";
import type { OwningHost } from "./owning-host.ts";
import type { SessionDefaults } from "../session/manager.ts";
import type { TypedCall } from "./gate.ts";
import { viewScreen } from "./view-screen.ts";

type Run<M extends HostMethod> = (host: OwningHost, params: HostInput<M>, ctx: CallContext) => Promise<HostResult<M>>;

/** An operation on no particular session. */
export interface HostOperation<M extends HostMethod> {
  check?(params: HostInput<M>): void;
  session: "none";
  run: Run<M>;
}

/** An operation on the session the call names, looked up (and checked alive) before it runs. */
export interface SessionOperation<M extends HostMethod> {
  check?(params: HostInput<M>): void;
  session: "named" | "alive" | "or-default";
  /** Where the default session starts ("or-default"): the caller's cwd and environment. */
  defaults?(params: HostInput<M>): SessionDefaults | undefined;
  /** What the call types into the session: the gate's to judge (it may refuse) and record first. */
  types?(params: HostInput<M>): TypedCall;
  run(host: OwningHost, params: HostInput<M>, ctx: CallContext, session: Session): Promise<HostResult<M>>;
}

export type Operation<M extends HostMethod> = HostOperation<M> | SessionOperation<M>;

export function onSession<M extends HostMethod>(op: Operation<M>): op is SessionOperation<M> {
  return op.session !== "none";
}

/** Results are checked against the table's output schema by the caller (LocalHost.apply). */
export const LOCAL_OPERATIONS: { [M in HostMethod]: Operation<M> } = {
  open: {
    session: "none",
    run: (h, p, ctx) => h.manager.open(p, ctx.clientId, ctx.signal, ctx.elicit, (id) => h.gate.open(id, p, ctx)),
  },

  exec: {
    session: "or-default",
    defaults: (p) => p.defaults,
    types: (p) => ({ via: "exec", command: p.command }),
    async run(_h, p, ctx, session) {
      // A serial line's shell gets its markers on first use (src/session/serial-shell.ts).
      if (kindDescriptor(session.kind).markersOnFirstExec) {
        const { prepareSerialExec } = await import("../session/serial-control.ts");
        await prepareSerialExec(session, p.timeout_ms, ctx.signal);
      }
      return session.redactFields(await execCommand(session, p, ctx.clientId, ctx.signal));
    },
  },

  send: {
    check(p) {
      compileUntil(p.until);
      if (p.keys) encodeKeys(p.keys);
    },
    session: "named",
    types: (p) => ({ via: "send", input: p }),
    run: async (_h, p, ctx, session) => session.redactFields(await sendInput(session, p, ctx.clientId, ctx.signal)),
  },

  read: {
    check: (p) => void compileUntil(p.until),
    session: "named",
    run: async (_h, p, ctx, session) => session.redactFields(await readSession(session, p, ctx.clientId, ctx.signal)),
  },

  list: { session: "none", run: async (h) => h.manager.list() },

  // Closing a session already closed succeeds: the manager remembers them.
  close: { session: "none", run: (h, p) => h.manager.close(p.session, p.signal) },

  resize: {
    session: "alive",
    async run(_h, p, _ctx, s) {
      s.resize(p.cols, p.rows);
      return { session: s.id, cols: s.cols, rows: s.rows };
    },
  },

  typeSecret: {
    session: "alive",
    // The trail says a secret was typed, never what.
    types: () => ({ via: "secret" }),
    async run(_h, p, _ctx, s) {
      s.addSecret(p.secret);
      s.write(p.secret + (p.enter ? "\r" : ""));
      return { session: s.id, sent: true };
    },
  },

  serial: {
    session: "named",
    async run(_h, p, _ctx, s) {
      const { serialControl } = await import("../session/serial-control.ts");
      return serialControl(s, p);
    },
  },

  viewInput: {
    session: "alive",
    types: (p) => ({ via: "view", text: p.text }),
    async run(_h, p, _ctx, s) {
      s.write(p.text);
      return { session: s.id, sent: true as const };
    },
  },

  viewScreen: { session: "named", run: (_h, p, ctx, s) => viewScreen(s, p, ctx.clientId, ctx.signal) },

  // Whether a session exists and runs (before asking a human for a secret): the preamble is all.
  check: { session: "alive", run: async () => ({ ok: true as const }) },

  taskStart: { session: "none", run: (h, p, ctx) => h.tasks.start(h, p, ctx) },
  taskGet: { session: "none", run: (h, p) => h.tasks.get(h, p) },
  taskUpdate: { session: "none", run: (h, p) => h.tasks.update(h, p) },
  taskCancel: { session: "none", run: (h, p) => h.tasks.cancel(h, p) },
};
