/** The CONTAINER_UNAVAILABLE errors, each with a hint that names what to do. */
import { AppError } from "../../api/errors.ts";
import { describeAddress, type EngineAddress } from "./engine-address.ts";

const LIST_HINT = "term_list {containers: true} lists the running containers.";

/** The system's reason (ENOENT, ECONNREFUSED) rather than the runtime's guess at a typo in the URL. */
function systemReason(err: Error): string {
  const code: unknown = Reflect.get(err, "code");
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : err.message;
}

export function engineUnreachable(address: EngineAddress, err: Error): AppError {
  const where = describeAddress(address);
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `no container engine answers at ${where}: ${systemReason(err)}`,
    "Start the engine (dockerd, or `podman system service` for Podman), or pass container.socket (or set " +
      "DOCKER_HOST) to where its API listens.",
    true,
  );
}

export function noSuchContainer(name: string): AppError {
  return new AppError("CONTAINER_UNAVAILABLE", `no such container: '${name}'`, `Check the name or id. ${LIST_HINT}`);
}

export function containerNotRunning(name: string, status: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `container '${name}' is not running (${status})`,
    `Start it (docker start ${name}), then open the session again. ${LIST_HINT}`,
  );
}

/** An API answer other than the ones expected: the engine's own message is the best explanation. */
export function engineRefused(what: string, status: number, message: string): AppError {
  return new AppError(
    "CONTAINER_UNAVAILABLE",
    `the container engine refused to ${what} (HTTP ${status}): ${message}`,
    "Check the container's state and the engine's log.",
  );
}
