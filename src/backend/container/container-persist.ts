/**
 * Persistent container sessions: a ptyhub daemon inside the container owns the shell, and this
 * side talks to it through `ptyhub bridge` on a non-TTY exec, exactly as SSH remote persistence
 * does (src/backend/remote: the link, the attach from a byte offset, the reconnect). Only the
 * transport is the container's: the binary is placed through the archive endpoint
 * (container-binary.ts) and the bridge's stdio is an exec stream (demultiplexed). A dropped engine
 * connection or a restarted MCP server loses nothing: the daemon inside keeps the shell and its
 * output, and the backend reattaches from the last byte it had.
 */
import { containerSiteFiles } from "./site-files.ts";
import { OnceEvent } from "../../util/once-event.ts";
import { AppError } from "../../api/errors.ts";
import type { ByteChannel } from "../../daemon-client/conn.ts";
import { linkOver, type BridgeChannel, type LinkTransport, type RemoteLink } from "../bridge/bridge-link.ts";
import { attachRemoteSession } from "../bridge/remote-attach.ts";
import type { LinkReach } from "../bridge/remote-backend.ts";
import type { ContainerParams } from "./params.ts";
import { containerBinary, NoPlacement } from "./container-binary.ts";
import type { ContainerInfo, EngineClient } from "./engine-client.ts";
import { loginShell } from "./login-shell.ts";
import type { ExecStream } from "./exec-stream.ts";
import { StdcopyDemuxer } from "./stdcopy.ts";
import type { ContainerOpened, ContainerOpenRequest } from "./container-opened.ts";

/** Characters of the bridge's stderr kept for an error (its last words say why it stopped). */
export const STDERR_TAIL_CHARS = 400;
/**
 * Runs the bridge ($0 "$@") with a usable HOME: the daemon keeps its state and log under it, and
 * users like nobody have none (/nonexistent). Such a user gets a private one in /tmp by uid
 * (read from /proc: no `id` in minimal images), which ptyhub creates 0700 itself.
 */
export const BRIDGE_WITH_A_HOME =
  'if [ -z "${HOME-}" ] || [ ! -d "$HOME" ] || [ ! -w "$HOME" ]; then ' +
  'u=; while read -r k v _; do if [ "$k" = Uid: ]; then u=$v; fi; done < /proc/self/status; ' +
  'HOME=/tmp/ptyhub-home-$u; export HOME; fi; exec "$0" "$@"';

/** The argv that runs the placed ptyhub's bridge (`--no-start`: only to a daemon already running). */
export function bridgeCommand(path: string, start: boolean): string[] {
  return ["/bin/sh", "-c", BRIDGE_WITH_A_HOME, path, "bridge", ...(start ? [] : ["--no-start"])];
}

/** An exec's input side as the bridge's channel: a container engine's stream or a pod's WebSocket. */
export function execChannel(stream: { write(bytes: Uint8Array): void; endInput(): void; close(): void }): ByteChannel {
  return {
    write(bytes) {
      stream.write(bytes);
      return bytes.length;
    },
    end: () => stream.endInput(),
    shutdown: () => stream.endInput(),
    terminate: () => stream.close(),
  };
}

/** One bridge exec in the container as a link's transport: the exec's stream is the connection. */
function containerTransport(engine: EngineClient, info: ContainerInfo, target: string, user?: string): LinkTransport {
  let stream: ExecStream | null = null;
  const lost = new OnceEvent();
  return {
    target,
    daemonLog: `~/.local/state/ptyhub/daemon.log inside ${target}`,
    async openBridge({ start, upload }): Promise<BridgeChannel | null> {
      const path = await containerBinary(engine, info, { upload });
      if (!path) return null;
      const cmd = bridgeCommand(path, start);
      const execId = await engine.createExec(info.id, { cmd, tty: false, user });
      const s = await engine.startExec(execId, false);
      stream = s;
      s.onClose(lost.fire);
      let stderr = "";
      const dataListeners: Array<(bytes: Uint8Array) => void> = [];
      const demux = new StdcopyDemuxer((which, payload) => {
        if (which === "stderr") stderr = (stderr + new TextDecoder().decode(payload)).slice(-STDERR_TAIL_CHARS);
        else for (const l of dataListeners) l(payload);
      });
      s.onData((bytes) => demux.push(bytes));
      return {
        channel: execChannel(s),
        onData: (l) => dataListeners.push(l),
        onClose: (l) => s.onClose(l),
        stderrTail: () => stderr,
      };
    },
    end: () => stream?.close(),
    onLost(listener) {
      lost.on(listener);
    },
  };
}

/** How a persistent container session reaches the daemon inside again. */
function containerReach(engine: EngineClient, p: ContainerParams, containerId: string, target: string): LinkReach {
  return {
    kind: "container",
    where: target,
    async open({ start, upload }): Promise<RemoteLink | null> {
      // A container that stopped (or was removed) took its daemon, and the session, with it.
      const info = await engine.inspect(containerId);
      if (!info?.running) return null;
      return linkOver(containerTransport(engine, info, target, p.user), { start, upload });
    },
    resumeHint: () => `it ends with the container; term_list {containers: true} shows whether ${target} still runs`,
    downCode: "CONTAINER_UNAVAILABLE",
  };
}

/** Opens the session in the container's daemon; NoPlacement when no ptyhub can run there. */
export async function openContainerPersist(
  engine: EngineClient,
  info: ContainerInfo,
  req: ContainerOpenRequest,
  target: string,
): Promise<ContainerOpened> {
  const p = req.container;
  // Placed (or found) before anything else: a container where ptyhub cannot run gets a plain exec.
  await containerBinary(engine, info, { upload: true });
  const reach = containerReach(engine, p, info.id, target);
  const link = await linkOver(containerTransport(engine, info, target, p.user), { start: true, upload: true }).catch(
    (err: unknown) => {
      // A daemon that cannot start there is as good as no binary: the plain exec still works.
      if (err instanceof AppError && err.code === "SPAWN_FAILED") throw new NoPlacement(err.message);
      throw err;
    },
  );
  if (!link) throw new NoPlacement("the ptyhub placed there did not start");
  try {
    const command = req.command ?? (await loginShell(engine, info, p.user));
    const cwd = req.cwd ?? p.workdir ?? (info.workingDir || undefined);
    const program = { command, args: req.args, cwd, env: req.env, cols: req.cols, rows: req.rows };
    const r = await attachRemoteSession(program, link, reach);
    return {
      backend: r.backend,
      target,
      integration: r.integration,
      family: r.family,
      cwd: null,
      startMark: false,
      nonce: r.nonce,
      description: `${target}: session ${r.target} in the container's ptyhub daemon`,
      files: containerSiteFiles(engine, info.id, p.user),
    };
  } catch (err) {
    link.close();
    throw err;
  }
}
