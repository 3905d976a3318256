/**
 * One link to a far side's ptyhub daemon (an SSH host, a container): a transport that places the
 * binary and runs `ptyhub bridge` over an exec channel, over which a DaemonClient speaks the
 * ordinary daemon protocol. The transport is all that differs between far sides.
 */
import { OnceEvent } from "../../util/once-event.ts";
import { AppError } from "../../api/errors.ts";
import { DaemonClient, DaemonConnectError } from "../../daemon-client/client.ts";
import type { ByteChannel } from "../../daemon-client/conn.ts";
import { BRIDGE_NO_DAEMON_LINE } from "../../daemon-client/protocol.ts";

export interface RemoteLink {
  client: DaemonClient;
  /** `user@host:port`. */
  target: string;
  /** Ends the bridge channel and the connection. Idempotent. */
  close(): void;
  /** Called once when the link is lost (the connection dropped, or the remote daemon hung up). */
  onLost(listener: () => void): void;
}

/** A far side's running `ptyhub bridge`: its stdin/stdout carry the daemon protocol. */
export interface BridgeChannel {
  channel: ByteChannel;
  onData(listener: (bytes: Uint8Array) => void): void;
  /** Called once when the bridge's stream ends. */
  onClose(listener: () => void): void;
  /** The last characters of its stderr (its last words say why it stopped). */
  stderrTail(): string;
}

/**
 * What a link needs from the connection to a far side (an SSH host, a container engine): the
 * binary placed and verified there, a bridge started over an exec channel, and word of the loss.
 */
export interface LinkTransport {
  /** `user@host:port`, `docker:NAME`. */
  target: string;
  /** Where that side's daemon log is, for an error's hint. */
  daemonLog: string;
  /** Starts `ptyhub bridge` there; null when no verified binary is there and `upload` is false. */
  openBridge(opts: { start: boolean; upload: boolean }): Promise<BridgeChannel | null>;
  /** Ends the connection. Idempotent. */
  end(): void;
  /** Called once when the connection drops. */
  onLost(listener: () => void): void;
}

/** Opens a link over any far side's transport (see openLink in link.ts). */
export async function linkOver(
  t: LinkTransport,
  opts: { start: boolean; upload: boolean },
): Promise<RemoteLink | null> {
  const target = t.target;
  const lost = new OnceEvent();
  t.onLost(lost.fire);
  try {
    const bridge = await t.openBridge({ start: opts.start, upload: opts.upload });
    if (!bridge) {
      t.end();
      return null;
    }
    const bridgeClosed = new Promise<void>((resolve) => bridge.onClose(resolve));
    let client: DaemonClient;
    try {
      const label = `${target} (ptyhub bridge)`;
      client = await DaemonClient.overChannel(bridge.channel, { role: "remote", label }, (byteConn) => {
        bridge.onData((bytes) => byteConn.data(bytes));
        bridge.onClose(() => byteConn.closedBySocket());
      });
    } catch (err) {
      // The bridge exits before any hello when it finds no daemon (--no-start): wait for its word.
      await bridgeClosed;
      t.end();
      const stderr = bridge.stderrTail();
      if (stderr.includes(BRIDGE_NO_DAEMON_LINE)) return null;
      if (err instanceof DaemonConnectError && err.kind === "incompatible") throw err;
      throw new AppError(
        "SPAWN_FAILED",
        `ptyhub bridge on ${target} failed: ${stderr.trim() || (err as Error).message}`,
        `Check the remote daemon's log: ${t.daemonLog}.`,
      );
    }
    client.onClose(lost.fire);
    let closed = false;
    return {
      client,
      target,
      close() {
        if (closed) return;
        closed = true;
        client.close();
        t.end();
      },
      onLost(listener) {
        lost.on(listener);
      },
    };
  } catch (err) {
    t.end();
    throw err;
  }
}
