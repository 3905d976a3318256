/**
 * Opening a container session: reach the engine, find the running container, then either a ptyhub
 * daemon placed inside owns the shell (persist, the default: container-persist.ts) or, when told
 * so or when no binary can be placed there, a plain exec TTY (exec-launch.ts), said so in the
 * session's target.
 */
import { containerSiteFiles } from "./site-files.ts";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { clip } from "../../util/quote.ts";
import type { ContainerParams } from "./params.ts";
import type { ContainerOpened, ContainerOpenRequest } from "./container-opened.ts";
import { engineAddress } from "./engine-address.ts";
import { EngineClient, type ContainerInfo } from "./engine-client.ts";
import { ContainerExecBackend } from "./exec-backend.ts";
import { launchInContainer } from "./exec-launch.ts";
import { NoPlacement } from "./container-binary.ts";
import { openContainerPersist } from "./container-persist.ts";

const log = logger("container");

/** Bound on why a session is not persistent, in its target (the log has the whole story). */
const NOTE_CHARS = 160;

/** `docker:NAME` (or `podman:NAME`): what term_list and term_open show. */
export function containerTarget(p: ContainerParams, info: ContainerInfo): string {
  return `${p.engine ?? "docker"}:${info.name}`;
}

export async function openContainer(req: ContainerOpenRequest): Promise<ContainerOpened> {
  const p = req.container;
  if (req.cwd !== undefined && p.workdir !== undefined)
    throw new AppError("INVALID_ARGUMENT", "pass either cwd or container.workdir, not both", "Drop one of them.");
  const engine = new EngineClient(engineAddress(p.engine ?? "docker", p.socket));
  const info = await engine.runningContainer(p.name);
  // `shell` names the program when no command does: the same path as a shell named in `command`.
  const program = { ...req, command: req.command ?? p.shell };
  const target = containerTarget(p, info);
  // Said in the target, so term_list shows which sessions a dropped connection would end.
  let note = " (plain exec)";
  if (p.persist !== false) {
    try {
      return await openContainerPersist(engine, info, { ...program, container: p }, target);
    } catch (err: unknown) {
      if (!(err instanceof NoPlacement)) throw err;
      log.warn(`${target}: no ptyhub can be placed inside (${err.message}): a plain exec TTY`);
      note = ` (plain exec, not persistent: ${clip(err.message.split("\n")[0] ?? "", NOTE_CHARS)})`;
    }
  }
  return openPlainExec(engine, info, program, target, note);
}

async function openPlainExec(
  engine: EngineClient,
  info: ContainerInfo,
  req: ContainerOpenRequest,
  target: string,
  note: string,
): Promise<ContainerOpened> {
  const p = req.container;
  const launch = await launchInContainer(engine, {
    ...req,
    containerId: info.id,
    user: p.user,
    workdir: p.workdir,
    defaultUser: info.user,
  });
  const backend = new ContainerExecBackend({
    engine,
    containerId: info.id,
    containerName: info.name,
    execId: launch.execId,
    stream: launch.stream,
    user: p.user,
  });
  return {
    backend,
    target: `${target}${note}`,
    integration: launch.integration,
    family: launch.family,
    cwd: launch.cwd,
    startMark: launch.startMark,
    description: `exec ${launch.program} in ${target}`,
    files: containerSiteFiles(engine, info.id, p.user),
  };
}
