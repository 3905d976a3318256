/**
 * `term_list {containers: true}`: the running containers of the default engine ($DOCKER_HOST, else
 * Docker's standard socket), each with what term_open's `container` takes. An engine that does not
 * answer is reported, not thrown: listing sessions must not fail because Docker is down.
 */
import { AppError } from "../../api/errors.ts";
import { engineAddress } from "./engine-address.ts";
import { EngineClient } from "./engine-client.ts";

export interface ListedContainerInfo {
  name: string;
  id: string;
  image: string;
  engine: "docker" | "podman";
  state: string;
}

export type ContainerListing = { containers: ListedContainerInfo[] } | { note: string };

export async function listContainers(): Promise<ContainerListing> {
  try {
    const engine = new EngineClient(engineAddress("docker", undefined));
    const running = await engine.listRunning();
    return { containers: running.map((c) => ({ ...c, id: c.id.slice(0, 12), engine: "docker" })) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { note: `${err.code}: ${err.message}. ${err.hint}` };
  }
}
