/**
 * What each host method does on the host that owns the sessions: one entry per method of the table
 * (src/api/table.ts), applied to validated params. The local host runs these; the daemon host and
 * the routing host only carry calls to the local host that has the session.
 */
import type { CallContext } from "../api/host.ts";
import { kindDescriptor } from "../backend/registry/kinds.ts";
import type { HostInput, HostMethod, HostResult } from "../api/table.ts";
import { execCommand } from "../session/exec.ts";
import { readSession } from "../session/read.ts";
import { compileUntil, sendInput } from "../session/send.ts";
import { encodeKeys } from "../terminal/keys.ts";
import type { OwningHost } from "./owning-host.ts";

type Operation<M extends HostMethod> = (
  host: OwningHost,
  params: HostInput<M>,
  ctx: CallContext,
) => Promise<HostResult<M>>;

/** Results are checked against the table's output schema by the caller (LocalHost.call). */
export const LOCAL_OPERATIONS: { [M in HostMethod]: Operation<M> } = {
  open: (h, p, ctx) => h.manager.open(p, ctx.clientId, ctx.signal, ctx.elicit, (id) => h.gate.open(id, p, ctx)),

  async exec(h, p, ctx) {
    const session = await h.manager.execTarget(p.session, ctx.signal, p.defaults);
    await h.gate.exec(session, p.command, ctx);
    // A serial line's shell gets its markers on first use (src/session/serial-shell.ts).
    if (kindDescriptor(session.kind).markersOnFirstExec) {
      const { prepareSerialExec } = await import("../session/serial-control.ts");
      await prepareSerialExec(session, p.timeout_ms, ctx.signal);
    }
    return session.redactFields(await execCommand(session, p, ctx.clientId, ctx.signal));
  },

  async send(h, p, ctx) {
    // Arguments are checked before the session is even looked up: bad input changes nothing.
    const until = compileUntil(p.until);
    if (p.keys) encodeKeys(p.keys);
    const session = h.manager.get(p.session);
    await h.gate.send(session, p, ctx);
    return session.redactFields(await sendInput(session, p, ctx.clientId, ctx.signal, until));
  },

  async read(h, p, ctx) {
    const until = compileUntil(p.until);
    const session = h.manager.get(p.session);
    return session.redactFields(await readSession(session, p, ctx.clientId, ctx.signal, until));
  },

  list: async (h) => h.manager.list(),

  close: (h, p) => h.manager.close(p.session, p.signal),

  async resize(h, p) {
    const s = h.manager.get(p.session);
    s.assertAlive();
    s.resize(p.cols, p.rows);
    return { session: s.id, cols: s.cols, rows: s.rows };
  },

  async typeSecret(h, p, ctx) {
    const s = h.manager.get(p.session);
    s.assertAlive();
    s.addSecret(p.secret);
    h.gate.secret(s, ctx);
    s.write(p.secret + (p.enter ? "\r" : ""));
    return { session: s.id, sent: true };
  },

  async serial(h, p) {
    const { serialControl } = await import("../session/serial-control.ts");
    return serialControl(h.manager.get(p.session), p);
  },

  async check(h, p) {
    h.manager.get(p.session).assertAlive();
    return { ok: true };
  },

  taskStart: (h, p, ctx) => h.tasks.start(h, p, ctx),
  taskGet: (h, p) => h.tasks.get(h, p),
  taskUpdate: (h, p) => h.tasks.update(h, p),
  taskCancel: (h, p) => h.tasks.cancel(h, p),
};
