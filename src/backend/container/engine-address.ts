/**
 * Where a container engine's API listens: term_open's `container.socket` (a unix socket path, or a
 * `unix://`/`tcp://` URL), else $DOCKER_HOST, else the engine's standard socket (Docker's
 * /var/run/docker.sock; Podman's per-user socket under $XDG_RUNTIME_DIR, else the system one).
 */
import { existsSync } from "node:fs";
import { AppError } from "../../api/errors.ts";

export type EngineName = "docker" | "podman";

export type EngineAddress = { kind: "unix"; path: string } | { kind: "tcp"; hostname: string; port: number };

/** Docker's port for plain (unencrypted) tcp:// when the URL names none. */
const DOCKER_TCP_PORT = 2375;

const DOCKER_SOCKET = "/var/run/docker.sock";
const PODMAN_SYSTEM_SOCKET = "/run/podman/podman.sock";

type Env = Record<string, string | undefined>;

function parse(spec: string): EngineAddress {
  if (spec.startsWith("unix://")) return { kind: "unix", path: spec.slice("unix://".length) };
  if (spec.startsWith("/")) return { kind: "unix", path: spec };
  if (spec.startsWith("tcp://")) {
    const url = new URL(`http://${spec.slice("tcp://".length)}`);
    return { kind: "tcp", hostname: url.hostname, port: url.port ? Number(url.port) : DOCKER_TCP_PORT };
  }
  throw new AppError(
    "INVALID_ARGUMENT",
    `container.socket must be a unix socket path or a unix:// or tcp:// URL, not '${spec}'`,
    "Pass e.g. /var/run/docker.sock, unix:///run/podman/podman.sock or tcp://127.0.0.1:2375.",
  );
}

/** The engine's standard socket, where nothing else is said. */
function standardSocket(engine: EngineName, env: Env): string {
  if (engine === "docker") return DOCKER_SOCKET;
  const perUser = env.XDG_RUNTIME_DIR ? `${env.XDG_RUNTIME_DIR}/podman/podman.sock` : null;
  return perUser && existsSync(perUser) ? perUser : PODMAN_SYSTEM_SOCKET;
}

export function engineAddress(engine: EngineName, socket: string | undefined, env: Env = process.env): EngineAddress {
  const spec = socket ?? env.DOCKER_HOST ?? standardSocket(engine, env);
  return parse(spec);
}

/** For messages: the socket path or `tcp://host:port`. */
export function describeAddress(a: EngineAddress): string {
  return a.kind === "unix" ? a.path : `tcp://${a.hostname}:${a.port}`;
}
