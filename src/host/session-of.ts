/**
 * The session a host call acts on: the routing key of src/api/table.ts's calls. A leaf module, so
 * that the hosts routing calls (src/host/routing-host.ts, src/host/daemon-host.ts) need not load the host
 * API table, whose schemas are the tools' own, before the first call.
 */

/** The session a call acts on, if it names one (routing key). */
export function sessionOf(params: object): string | undefined {
  const s: unknown = Reflect.get(params, "session");
  return typeof s === "string" ? s : undefined;
}
