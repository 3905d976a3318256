/** term_open's `pod` object (SPEC.md), as the backend receives it. */
import { z } from "zod";

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
  shell: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("Shell to run (default: the user's login shell from the container's /etc/passwd, else /bin/sh)."),
  persist: z
    .boolean()
    .optional()
    .describe(
      "Default true: a ptyhub daemon placed inside the container owns the session, so a dropped API connection " +
        "or a restarted MCP server loses nothing. false (or where no binary can be placed): a plain exec TTY.",
    ),
});

export type PodParams = z.output<typeof podParams>;

/** The `pod` field of term_open. */
export const podOpenParam = podParams
  .optional()
  .describe(
    "Open inside a Kubernetes pod through the API server (`pods/exec`, kubeconfig as kubectl reads it; no kubectl " +
      "needed), with shell integration; command/args/cwd/env apply inside it.",
  );
