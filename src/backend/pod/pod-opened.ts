/** What opening a pod session takes and gives (pod-open.ts, pod-persist.ts, pod-plain.ts). */
import type { ProgramSpec } from "../descriptor.ts";
import type { ContainerOpened } from "../container/container-opened.ts";
import type { PodParams } from "./params.ts";

export interface PodOpenRequest extends ProgramSpec {
  pod: PodParams;
  setupTimeoutMs: number;
}

/** The same as a container's: a backend, its target and what is known of its shell. */
export type PodOpened = ContainerOpened;

/**
 * The user whose login shell is looked up: an exec runs as the container's own user, which the
 * API does not say, so root's entry (by name or uid 0) is read, as for a container without a user.
 */
export const POD_EXEC_USER = "root";
