/**
 * The pod kind: a shell (or `command`) inside a container of a Kubernetes pod, through the API
 * server's `pods/exec` (kubeconfig as kubectl reads it; no kubectl needed). Persistent by default:
 * a ptyhub daemon placed inside owns the session, reached through `ptyhub bridge` over an exec
 * (pod-persist.ts); else a plain exec TTY. The pod's files are its own: the guard asks the pod about
 * them (site-files.ts), and `sandbox` is refused (the pod confines it).
 */
import {
  ELSEWHERE,
  type KindDescriptor,
  type OpenContext,
  type OpenedBackend,
  type ProgramSpec,
} from "../descriptor.ts";
import type { PodParams } from "./params.ts";

async function openInPod(pod: PodParams, program: ProgramSpec, ctx: OpenContext): Promise<OpenedBackend> {
  const { openPod } = await import("./pod-open.ts");
  const { validateEnv } = await import("../local/launch.ts");
  const setupTimeoutMs = ctx.config.open_timeout_ms;
  const r = await openPod({ ...program, pod, env: validateEnv(program.env), setupTimeoutMs });
  return { kind: "pod", ...r };
}

export const podKind: KindDescriptor = {
  name: "pod",
  // Its program runs elsewhere: the guard asks its own files (site-files.ts), and `sandbox` is refused.
  ...ELSEWHERE,
  prepare(p) {
    const pod = p.pod;
    if (pod === undefined) throw new Error("the pod kind opened without `pod`");
    return (program, ctx) => openInPod(pod, program, ctx);
  },
};
