/** term_open's `pod` object (SPEC.md), as the backend receives it. */
import { z } from "zod";
import { containerShellParam, persistParam } from "../container/params.ts";

export const podParams = z.strictObject({
  name: z.string().min(1).max(253).describe("The pod's name."),
  namespace: z
    .string()
    .min(1)
    .max(63)
    .optional()
    .describe("The pod's namespace (default: the context's, else `default`)."),
  container: z.string().min(1).max(63).optional().describe("The container in the pod (default: the pod's default)."),
  context: z.string().min(1).max(255).optional().describe("The kubeconfig context (default: its current context)."),
  kubeconfig: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe("The kubeconfig file (default $KUBECONFIG, then ~/.kube/config), as kubectl reads it."),
  shell: containerShellParam,
  persist: persistParam("API connection"),
});

export type PodParams = z.output<typeof podParams>;

/** The `pod` field of term_open. */
export const podOpenParam = podParams
  .optional()
  .describe(
    "Open inside a Kubernetes pod through the API server (`pods/exec`, kubeconfig as kubectl reads it; no kubectl " +
      "needed), with shell integration; command/args/cwd/env apply inside it.",
  );
