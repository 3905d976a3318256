/**
 * Putting ptyhub into a container, by content hash: the container's platform comes from its
 * image (`Os`/`Architecture`) and its C library from which loader it has; the binary this ptyhub
 * can supply for that platform (source-binary.ts: its own, a cached release, a dist/ build or one
 * compiled from source) goes through the archive endpoint to `/var/lib/ptyhub/bin/<version>-<sha256 prefix>/ptyhub`,
 * unless a file of that size is already there (the path names the content; only ptyhub writes it).
 * Where nothing can be placed (an unknown platform, no binary for it, a read-only root) the
 * caller falls back to a plain exec TTY: NoPlacement says why.
 */
import { statSync } from "node:fs";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { VERSION } from "../../version.ts";
import { sha256File } from "../ssh/persist/provision.ts";
import { platformOf, type Libc } from "../ssh/persist/platform.ts";
import { suppliedBinary } from "../ssh/persist/source-binary.ts";
import type { ContainerInfo, EngineClient } from "./engine-client.ts";
import { tarFileStream } from "./tar.ts";

const log = logger("container-binary");

/** Hex digits of the binary's sha256 in its directory name: distinct builds of one version never share a path. */
const SHA_PREFIX_CHARS = 16;
/** Where binaries go inside containers: outside /tmp, which is often a tmpfs the archive endpoint cannot reach. */
const BIN_ROOT = "var/lib/ptyhub/bin";
/** The musl loader by architecture, as Alpine names it: present (and no glibc loader) means musl. */
const MUSL_LOADERS: Record<string, string> = { x64: "/lib/ld-musl-x86_64.so.1", arm64: "/lib/ld-musl-aarch64.so.1" };

/** No ptyhub can run in this container; the message says why, for the session's target. */
export class NoPlacement extends Error {}

async function containerLibc(engine: EngineClient, containerId: string, arch: string): Promise<Libc> {
  const loader = MUSL_LOADERS[arch];
  return loader && (await engine.statPath(containerId, loader)) ? "musl" : "gnu";
}

/** The directory a binary is placed in, named by its version and content: `<version>-<sha256 prefix>`. */
export async function binaryDirName(local: string): Promise<string> {
  return `${VERSION}-${(await sha256File(local)).slice(0, SHA_PREFIX_CHARS)}`;
}

/** Placements under way, by container: sessions opened at once in a fresh container share one upload. */
const placing = new Map<string, Promise<string | null>>();

/**
 * The path of ptyhub inside the container, placing it when it is missing and `upload` allows;
 * null when it is missing and `upload` is false.
 */
export function containerBinary(
  engine: EngineClient,
  info: ContainerInfo,
  opts: { upload: boolean },
): Promise<string | null> {
  const key = `${info.id}:${opts.upload}`;
  const known = placing.get(key);
  if (known) return known;
  const p = place(engine, info, opts).finally(() => placing.delete(key));
  placing.set(key, p);
  return p;
}

async function place(engine: EngineClient, info: ContainerInfo, opts: { upload: boolean }): Promise<string | null> {
  const { os, architecture } = await engine.imagePlatform(info.imageId);
  const arch = platformOf(`Linux ${architecture}`)?.split("-")[1] ?? "";
  const uname = `${os === "linux" ? "Linux" : os} ${architecture}`;
  const platform = platformOf(uname, await containerLibc(engine, info.id, arch));
  if (!platform) throw new NoPlacement(`ptyhub is not built for ${os}/${architecture}`);
  const local = await suppliedBinary(platform, { build: opts.upload });
  if (!local) throw new NoPlacement(`this ptyhub has no binary for ${platform} to place there`);
  const relative = `${BIN_ROOT}/${await binaryDirName(local)}/ptyhub`;
  const path = `/${relative}`;
  const size = statSync(local).size;
  const present = await engine.statPath(info.id, path);
  if (present?.size === size) return path;
  if (!opts.upload) return null;
  log.info(`placing ${local} at ${path} in ${info.name}`);
  const tar = tarFileStream({ path: relative, mode: 0o755, size }, Bun.file(local).stream());
  try {
    await engine.putArchive(info.id, "/", tar);
  } catch (err) {
    if (err instanceof AppError && err.code === "SPAWN_FAILED") throw new NoPlacement(err.message);
    throw err;
  }
  return path;
}
