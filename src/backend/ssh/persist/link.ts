/**
 * One link to a remote host's ptyhub daemon: an SSH connection, the verified binary, and an exec
 * channel running `ptyhub bridge`, over which a DaemonClient speaks the ordinary daemon protocol.
 */
import type { ClientChannel } from "ssh2";
import { AppError } from "../../../api/errors.ts";
import { logger } from "../../../log.ts";
import { DaemonClient, DaemonConnectError } from "../../../daemon-client/client.ts";
import type { ByteChannel } from "../../../daemon-client/conn.ts";
import { connectSsh, type SshConnection, type SshParams } from "../connect.ts";
import type { Elicit } from "../auth.ts";
import { quotePosix } from "../../../terminal/shell-integration.ts";
import { BRIDGE_NO_DAEMON_LINE } from "../../../daemon-client/protocol.ts";
import { remoteBinary } from "./provision.ts";

const log = logger("remote-link");

/** Characters of the bridge's stderr quoted in an error (its last words say why it stopped). */
const STDERR_TAIL_CHARS = 400;

export interface RemoteLink {
  client: DaemonClient;
  /** `user@host:port`. */
  target: string;
  /** Ends the bridge channel and the connection. Idempotent. */
  close(): void;
  /** Called once when the link is lost (the connection dropped, or the remote daemon hung up). */
  onLost(listener: () => void): void;
}

export interface LinkOptions {
  /** Start the remote daemon when none runs (opening a new session); else report it absent. */
  start: boolean;
  /** Upload the binary when it is missing. */
  upload: boolean;
  elicit?: Elicit;
  signal?: AbortSignal;
}

/** An SSH channel as the ByteChannel a daemon Conn writes to. */
function channelStream(ch: ClientChannel): ByteChannel {
  return {
    write(bytes) {
      // The channel buffers what the window does not take yet: every byte is accepted in order.
      ch.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return bytes.length;
    },
    end: () => ch.end(),
    shutdown: () => ch.end(),
    terminate: () => ch.close(),
  };
}

function execChannel(conn: SshConnection, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => conn.client.exec(command, (err, ch) => (err ? reject(err) : resolve(ch))));
}

/**
 * Opens a link. Resolves null when `start` is false and no daemon runs there (or no verified
 * binary is there and `upload` is false): the remote host has no persistent sessions.
 */
export async function openLink(ssh: SshParams, opts: LinkOptions): Promise<RemoteLink | null> {
  const conn = await connectSsh(ssh, { elicit: opts.elicit, signal: opts.signal });
  const h = conn.host;
  const target = `${h.user}@${h.hostname}:${h.port}`;
  let lost = false;
  const lostListeners: Array<() => void> = [];
  const markLost = () => {
    if (lost) return;
    lost = true;
    for (const l of lostListeners) l();
  };
  for (const c of [...conn.hops, conn.client]) {
    c.on("error", (err: Error & { level?: string }) => {
      if (err.level !== "agent") log.info(`ssh connection to ${target}: ${err.message}`);
    });
    c.on("close", markLost);
  }
  try {
    const path = await remoteBinary(conn.client, { upload: opts.upload });
    if (!path) {
      conn.end();
      return null;
    }
    const ch = await execChannel(conn, `exec ${quotePosix(path)} bridge${opts.start ? "" : " --no-start"}`);
    let stderr = "";
    ch.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-STDERR_TAIL_CHARS)));
    const chClosed = new Promise<void>((resolve) => ch.once("close", () => resolve()));
    let client: DaemonClient;
    try {
      const label = `${target} (ptyhub bridge)`;
      client = await DaemonClient.overChannel(channelStream(ch), { role: "remote", label }, (byteConn) => {
        ch.on("data", (d: Buffer) => byteConn.data(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
        ch.on("close", () => byteConn.closedBySocket());
        conn.client.on("close", () => byteConn.closedBySocket());
      });
    } catch (err) {
      // The bridge exits before any hello when it finds no daemon (--no-start): wait for its word.
      await chClosed;
      conn.end();
      if (stderr.includes(BRIDGE_NO_DAEMON_LINE)) return null;
      if (err instanceof DaemonConnectError && err.kind === "incompatible") throw err;
      throw new AppError(
        "SPAWN_FAILED",
        `ptyhub bridge on ${target} failed: ${stderr.trim() || (err as Error).message}`,
        "Check the remote daemon's log: ~/.local/state/ptyhub/daemon.log on that host.",
      );
    }
    client.onClose(markLost);
    let closed = false;
    return {
      client,
      target,
      close() {
        if (closed) return;
        closed = true;
        client.close();
        conn.end();
      },
      onLost(listener) {
        if (lost) listener();
        else lostListeners.push(listener);
      },
    };
  } catch (err) {
    conn.end();
    throw err;
  }
}
