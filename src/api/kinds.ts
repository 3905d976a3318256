/**
 * The kinds of session, as the contract names them: one list. Each kind but `local` is selected by
 * a term_open parameter of its own name, whose schema lives in the kind's folder
 * (src/backend/<kind>/params.ts, which imports nothing but zod and so is layered with this folder).
 * Everything that enumerates kinds — the `kind` enums of the results, "at most one of", which
 * kind a term_open asks for — derives from this list; the descriptors that say how a kind behaves
 * are keyed by it (src/backend/registry/kinds.ts), so a kind missing there does not compile.
 */
import { AppError } from "./errors.ts";
import { sshOpenParam } from "../backend/ssh/params.ts";
import { serialOpenParam } from "../backend/serial/params.ts";
import { containerOpenParam } from "../backend/container/params.ts";
import { podOpenParam } from "../backend/pod/params.ts";

/** term_open's parameters that select a kind: adding a kind adds its line here. */
export const KIND_PARAMS = {
  ssh: sshOpenParam,
  serial: serialOpenParam,
  container: containerOpenParam,
  pod: podOpenParam,
};

export type RemoteKind = keyof typeof KIND_PARAMS;
export type BackendKind = "local" | RemoteKind;

/** Object.keys, typed: the keys of a literal object are exactly its own. */
function ownKeys<T extends object>(o: T): Array<keyof T & string> {
  return Object.keys(o).filter((k): k is keyof T & string => k in o);
}

const REMOTE_KINDS: RemoteKind[] = ownKeys(KIND_PARAMS);

/** Every kind, `local` first: the values of the results' `kind` field. */
export const BACKEND_KINDS: [BackendKind, ...BackendKind[]] = ["local", ...REMOTE_KINDS];

/**
 * The kind a term_open asks for: the one kind parameter given, else `local`. Two given is
 * INVALID_ARGUMENT (a session has one far end), before anything is reserved or started.
 */
export function kindOfOpen(p: Partial<Record<RemoteKind, unknown>>): BackendKind {
  const given = REMOTE_KINDS.filter((k) => p[k] !== undefined);
  if (given.length > 1) {
    const names = given.map((k) => `\`${k}\``).join(" and ");
    throw new AppError("INVALID_ARGUMENT", `${names} cannot be combined`, "Open one session per far end.");
  }
  return given[0] ?? "local";
}
