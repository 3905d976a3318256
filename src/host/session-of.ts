/**
 * The session a host call acts on: the routing key of src/api/table.ts's calls. A leaf module, so
 * that the hosts routing calls (src/host/routing-host.ts, src/host/daemon-host.ts) need not load the host
 * API table, whose schemas are the tools' own, before the first call.
 */
import { DEFAULT_SESSION } from "../api/session-id.ts";
import type { HostMethod } from "../api/table.ts";

/**
 * The methods that, naming no session, act on the default session (`main`, opened on first use in
 * the caller's cwd and environment, which the call carries as `defaults`). Every host asks this
 * instead of special-casing term_exec.
 */
const ON_DEFAULT_SESSION: ReadonlySet<HostMethod> = new Set<HostMethod>(["exec"]);

/** The session a call acts on, if it names one (routing key). */
export function sessionOf(params: object): string | undefined {
  const s: unknown = Reflect.get(params, "session");
  return typeof s === "string" ? s : undefined;
}

/** Where a call goes: the session it names, or the default one; undefined: no session at all. */
export interface CallTarget {
  session: string;
  /** Named by nobody: the default session, which the owning host opens on first use. */
  byDefault: boolean;
}

export function targetOf(method: HostMethod, params: object): CallTarget | undefined {
  const named = sessionOf(params);
  if (named !== undefined) return { session: named, byDefault: false };
  return ON_DEFAULT_SESSION.has(method) ? { session: DEFAULT_SESSION, byDefault: true } : undefined;
}
