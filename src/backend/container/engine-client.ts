/**
 * A client of the Docker Engine API (and Podman's compatible one) over its unix socket or tcp://,
 * with only what terminals need: inspect a container and its image, list the running ones, create,
 * start, resize and inspect execs, and put files in through the archive endpoint. No CLI: fetch()
 * for JSON calls, a raw socket for an exec's stream (exec-stream.ts). Paths carry no API version,
 * so the engine serves its own (Docker and Podman both accept that).
 */
import { AppError } from "../../api/errors.ts";
import type { EngineAddress } from "./engine-address.ts";
import { containerNotRunning, engineRefused, engineUnreachable, noSuchContainer } from "./engine-errors.ts";
import { startExecStream, type ExecStream } from "./exec-stream.ts";

export interface ContainerInfo {
  id: string;
  /** Without Docker's leading slash. */
  name: string;
  image: string;
  imageId: string;
  running: boolean;
  /** `running`, `exited`, `paused`, … */
  status: string;
  /** The container's default user (`Config.User`); empty: root. */
  user: string;
  /** The container's default directory (`Config.WorkingDir`); empty: the user's home. */
  workingDir: string;
}

export interface ExecOptions {
  cmd: string[];
  tty: boolean;
  user?: string;
  workdir?: string;
  env?: string[];
}

export interface ExecState {
  running: boolean;
  exitCode: number | null;
}

export interface ListedContainer {
  name: string;
  id: string;
  image: string;
  state: string;
}

/** The stat the archive endpoint returns in its X-Docker-Container-Path-Stat header. */
export interface PathStat {
  size: number;
  mode: number;
}

const STAT_HEADER = "x-docker-container-path-stat";

export class EngineClient {
  constructor(readonly address: EngineAddress) {}

  private async request(
    method: string,
    path: string,
    body?: string | Uint8Array | ReadableStream<Uint8Array>,
    contentType?: string,
  ): Promise<Response> {
    const a = this.address;
    const url = a.kind === "unix" ? `http://docker${path}` : `http://${a.hostname}:${a.port}${path}`;
    const headers: Record<string, string> = contentType ? { "Content-Type": contentType } : {};
    try {
      return await fetch(url, { method, body, headers, ...(a.kind === "unix" ? { unix: a.path } : {}) });
    } catch (err) {
      throw engineUnreachable(a, err as Error);
    }
  }

  private async json<T>(method: string, path: string, what: string, body?: unknown): Promise<T> {
    const r = await this.request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      "application/json",
    );
    if (!r.ok) throw engineRefused(what, r.status, await messageOf(r));
    return (await r.json()) as T;
  }

  /** The container, whatever its state; null when the engine has none of that name or id. */
  async inspect(name: string): Promise<ContainerInfo | null> {
    const r = await this.request("GET", `/containers/${encodeURIComponent(name)}/json`);
    if (r.status === 404) return null;
    if (!r.ok) throw engineRefused(`inspect container '${name}'`, r.status, await messageOf(r));
    const c = (await r.json()) as {
      Id: string;
      Name: string;
      Image: string;
      Config?: { Image?: string; User?: string; WorkingDir?: string };
      State?: { Running?: boolean; Paused?: boolean; Status?: string };
    };
    return {
      id: c.Id,
      name: c.Name.replace(/^\//, ""),
      image: c.Config?.Image ?? c.Image,
      imageId: c.Image,
      running: c.State?.Running === true && c.State?.Paused !== true,
      status: c.State?.Status ?? "unknown",
      user: c.Config?.User ?? "",
      workingDir: c.Config?.WorkingDir ?? "",
    };
  }

  /** The container, which must exist and be running. */
  async runningContainer(name: string): Promise<ContainerInfo> {
    const info = await this.inspect(name);
    if (!info) throw noSuchContainer(name);
    if (!info.running) throw containerNotRunning(name, info.status);
    return info;
  }

  /** `Os` and `Architecture` of an image, as `linux` / `amd64`. */
  async imagePlatform(imageId: string): Promise<{ os: string; architecture: string }> {
    const img = await this.json<{ Os?: string; Architecture?: string }>(
      "GET",
      `/images/${encodeURIComponent(imageId)}/json`,
      "inspect the container's image",
    );
    return { os: img.Os ?? "", architecture: img.Architecture ?? "" };
  }

  async listRunning(): Promise<ListedContainer[]> {
    const list = await this.json<Array<{ Id: string; Names?: string[]; Image: string; State: string }>>(
      "GET",
      "/containers/json",
      "list containers",
    );
    return list.map((c) => ({
      name: (c.Names?.[0] ?? c.Id.slice(0, 12)).replace(/^\//, ""),
      id: c.Id,
      image: c.Image,
      state: c.State,
    }));
  }

  async createExec(containerId: string, o: ExecOptions): Promise<string> {
    const body = {
      Cmd: o.cmd,
      Tty: o.tty,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      ...(o.user ? { User: o.user } : {}),
      ...(o.workdir ? { WorkingDir: o.workdir } : {}),
      ...(o.env && o.env.length > 0 ? { Env: o.env } : {}),
    };
    const r = await this.request("POST", `/containers/${containerId}/exec`, JSON.stringify(body), "application/json");
    if (r.status === 404) throw noSuchContainer(containerId);
    if (r.status === 409) throw containerNotRunning(containerId, await messageOf(r));
    if (!r.ok) throw engineRefused("create an exec", r.status, await messageOf(r));
    return ((await r.json()) as { Id: string }).Id;
  }

  startExec(execId: string, tty: boolean): Promise<ExecStream> {
    return startExecStream(this.address, execId, tty);
  }

  /** Sets the exec's terminal size (its program sees SIGWINCH). */
  async resizeExec(execId: string, cols: number, rows: number): Promise<void> {
    const r = await this.request("POST", `/exec/${execId}/resize?h=${rows}&w=${cols}`);
    if (!r.ok) throw engineRefused("resize the exec", r.status, await messageOf(r));
  }

  async inspectExec(execId: string): Promise<ExecState> {
    const e = await this.json<{ Running: boolean; ExitCode: number | null }>(
      "GET",
      `/exec/${execId}/json`,
      "inspect the exec",
    );
    return { running: e.Running, exitCode: e.Running ? null : e.ExitCode };
  }

  /** The file or directory at `path` in the container, or null when there is none. */
  async statPath(containerId: string, path: string): Promise<PathStat | null> {
    const r = await this.request("HEAD", `/containers/${containerId}/archive?path=${encodeURIComponent(path)}`);
    if (r.status === 404) return null;
    if (!r.ok) throw engineRefused(`look at ${path} in the container`, r.status, "");
    const header = r.headers.get(STAT_HEADER);
    if (!header) return null;
    const stat = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { size: number; mode: number };
    return { size: stat.size, mode: stat.mode };
  }

  /** Unpacks a tar archive into `dir` (which must exist) in the container. */
  async putArchive(containerId: string, dir: string, tar: Uint8Array | ReadableStream<Uint8Array>): Promise<void> {
    const path = `/containers/${containerId}/archive?path=${encodeURIComponent(dir)}`;
    const r = await this.request("PUT", path, tar, "application/x-tar");
    if (!r.ok) {
      const message = await messageOf(r);
      throw new AppError(
        "SPAWN_FAILED",
        `the engine did not take files into ${dir} (HTTP ${r.status}): ${message}`,
        "The container's filesystem may be read-only.",
      );
    }
  }
}

async function messageOf(r: Response): Promise<string> {
  const text = await r.text().catch(() => "");
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text.trim();
  }
}
