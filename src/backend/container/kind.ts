/**
 * The container kind: a shell (or `command`) inside a running Docker or Podman container, through
 * the engine's API. Persistent by default: a ptyhub daemon placed inside owns the session and is
 * reached through `ptyhub bridge` over an exec (container-persist.ts); else a plain exec TTY. The
 * container's files are its own: the guard asks the container about them (site-files.ts), and
 * `sandbox` is refused (the container confines it).
 */
import {
  ELSEWHERE,
  type KindDescriptor,
  type OpenContext,
  type OpenedBackend,
  type ProgramSpec,
} from "../descriptor.ts";
import type { ContainerParams } from "./params.ts";

async function openInContainer(
  container: ContainerParams,
  program: ProgramSpec,
  ctx: OpenContext,
): Promise<OpenedBackend> {
  const { openContainer } = await import("./container-open.ts");
  const { validateEnv } = await import("../local/launch.ts");
  const setupTimeoutMs = ctx.config.open_timeout_ms;
  const r = await openContainer({ ...program, container, env: validateEnv(program.env), setupTimeoutMs });
  return { kind: "container", ...r };
}

export const containerKind: KindDescriptor = {
  name: "container",
  // Its program runs elsewhere: the guard asks its own files (site-files.ts), and `sandbox` is refused.
  ...ELSEWHERE,
  prepare(p) {
    const container = p.container;
    if (container === undefined) throw new Error("the container kind opened without `container`");
    return (program, ctx) => openInContainer(container, program, ctx);
  },
};
