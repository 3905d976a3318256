/** term_open's `container` object (SPEC.md), as the backend receives it. */
import { z } from "zod";

/** The shell a container's (or a pod's container's) session runs when no `command` names one. */
export const containerShellParam = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe("Shell to run (default: the user's login shell from the container's /etc/passwd, else /bin/sh).");

/** Whether a ptyhub placed inside owns the session; `link` is what the far side is reached over. */
export function persistParam(link: string) {
  return z
    .boolean()
    .optional()
    .describe(
      `Default true: a ptyhub daemon placed inside the container owns the session, so a dropped ${link} ` +
        "or a restarted MCP server loses nothing. false (or where no binary can be placed): a plain exec TTY.",
    );
}

export const containerParams = z.strictObject({
  name: z.string().min(1).max(255).describe("The container's name or id."),
  engine: z.enum(["docker", "podman"]).optional().describe("The engine (default docker); Podman's API is compatible."),
  socket: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      "The engine's API: a unix socket path or a unix:// or tcp:// URL (default $DOCKER_HOST, then the standard one).",
    ),
  user: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("User (name or uid[:gid]) in the container (default: the container's)."),
  workdir: z.string().min(1).max(4096).optional().describe("Directory the shell starts in (default: the container's)."),
  shell: containerShellParam,
  persist: persistParam("engine connection"),
});

export type ContainerParams = z.output<typeof containerParams>;

/** The `container` field of term_open. */
export const containerOpenParam = containerParams
  .optional()
  .describe(
    "Open inside a running container through its engine's API (Docker or Podman; no CLI needed), with shell " +
      "integration; command/args/cwd/env apply inside it.",
  );
