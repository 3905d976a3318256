/**
 * Opening a pod session: read the kubeconfig as kubectl does, find the running pod and its
 * container through the API server, then either a ptyhub daemon placed inside owns the shell
 * (persist, the default: pod-persist.ts) or, when told so or when no binary can be placed there,
 * a plain exec TTY (pod-plain.ts), said so in the session's target.
 */
import { logger } from "../../log.ts";
import { clip } from "../../util/quote.ts";
import { NoPlacement } from "../container/container-binary.ts";
import { kubeTarget } from "./kubeconfig.ts";
import { podTarget, runningPod } from "./pod-api.ts";
import { openPodPersist } from "./pod-persist.ts";
import { openPodPlain } from "./pod-plain.ts";
import type { PodOpened, PodOpenRequest } from "./pod-opened.ts";

const log = logger("pod");

/** Bound on why a session is not persistent, in its target (the log has the whole story). */
const NOTE_CHARS = 160;

export async function openPod(req: PodOpenRequest): Promise<PodOpened> {
  const p = req.pod;
  const k = kubeTarget(p);
  const pod = await runningPod(k, p.name, p.container, req.setupTimeoutMs);
  // `shell` names the program when no command does: the same path as a shell named in `command`.
  const program = { ...req, command: req.command ?? p.shell };
  let note = " (plain exec)";
  if (p.persist !== false) {
    try {
      return await openPodPersist(k, pod, program);
    } catch (err: unknown) {
      if (!(err instanceof NoPlacement)) throw err;
      log.warn(`${podTarget(pod)}: no ptyhub can be placed inside (${err.message}): a plain exec TTY`);
      note = ` (plain exec, not persistent: ${clip(err.message.split("\n")[0] ?? "", NOTE_CHARS)})`;
    }
  }
  return openPodPlain(k, pod, program, note);
}
