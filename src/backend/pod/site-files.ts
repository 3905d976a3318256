/** A pod's files for the guard: the far-side probe (site-probe.ts) run by one pods/exec. */
import type { SiteFiles } from "../site-files.ts";
import { probedSiteFiles } from "../site-probe.ts";
import type { KubeTarget } from "./kubeconfig.ts";
import type { PodInfo } from "./pod-api.ts";
import { runPodExec } from "./pod-run.ts";

export function podSiteFiles(k: KubeTarget, pod: PodInfo): SiteFiles {
  return probedSiteFiles(async (argv, timeoutMs) => (await runPodExec(k, pod, argv, { timeoutMs })).out);
}
