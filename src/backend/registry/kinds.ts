/**
 * The kinds' descriptors, keyed by the contract's list of kinds (src/api/kinds.ts): a kind named
 * there without a descriptor here does not compile. Adding a kind: its folder under src/backend
 * (params.ts, kind.ts and what it opens), its parameter's line in src/api/kinds.ts, its line here.
 */
import { type BackendKind, kindOfOpen } from "../../api/kinds.ts";
import type { KindDescriptor, OpenParams } from "../descriptor.ts";
import { localKind } from "../local/kind.ts";
import { serialKind } from "../serial/kind.ts";
import { sshKind } from "../ssh/kind.ts";
import { containerKind } from "../container/kind.ts";
import { podKind } from "../pod/kind.ts";

const KINDS: { [K in BackendKind]: KindDescriptor } = {
  local: localKind,
  ssh: sshKind,
  serial: serialKind,
  container: containerKind,
  pod: podKind,
};

export function kindDescriptor(kind: BackendKind): KindDescriptor {
  return KINDS[kind];
}

/** The descriptor of the kind a term_open asks for (INVALID_ARGUMENT when it names two). */
export function kindOfParams(p: Partial<Pick<OpenParams, BackendKind & keyof OpenParams>>): KindDescriptor {
  return KINDS[kindOfOpen(p)];
}
