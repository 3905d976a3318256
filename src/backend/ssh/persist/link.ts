/**
 * One link to a remote host's ptyhub daemon over SSH: the connection, the binary verified (and
 * uploaded over SFTP when missing), and an exec channel running `ptyhub bridge` (bridge-link.ts).
 */
import { OnceEvent } from "../../../util/once-event.ts";
import type { ClientChannel } from "ssh2";
import { logger } from "../../../log.ts";
import type { ByteChannel } from "../../../daemon-client/conn.ts";
import { connectSsh, type SshConnection, type SshParams } from "../connect.ts";
import type { Elicit } from "../auth.ts";
import { quotePosix } from "../../../terminal/shell-integration.ts";
import { linkOver, type LinkTransport, type RemoteLink } from "../../bridge/bridge-link.ts";
import { remoteBinary } from "./provision.ts";

export type { RemoteLink } from "../../bridge/bridge-link.ts";

const log = logger("remote-link");

/** Characters of the bridge's stderr quoted in an error (its last words say why it stopped). */
const STDERR_TAIL_CHARS = 400;

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

/** The SSH connection as a link's transport: SFTP places the binary, an exec channel runs the bridge. */
async function sshTransport(ssh: SshParams, opts: LinkOptions): Promise<LinkTransport> {
  const conn = await connectSsh(ssh, { elicit: opts.elicit, signal: opts.signal });
  const h = conn.host;
  const target = `${h.user}@${h.hostname}:${h.port}`;
  const lost = new OnceEvent();
  for (const c of [...conn.hops, conn.client]) {
    c.on("error", (err: Error & { level?: string }) => {
      if (err.level !== "agent") log.info(`ssh connection to ${target}: ${err.message}`);
    });
    c.on("close", lost.fire);
  }
  return {
    target,
    daemonLog: "~/.local/state/ptyhub/daemon.log on that host",
    async openBridge({ start, upload }) {
      const path = await remoteBinary(conn.client, { upload });
      if (!path) return null;
      const ch = await execChannel(conn, `exec ${quotePosix(path)} bridge${start ? "" : " --no-start"}`);
      let stderr = "";
      ch.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-STDERR_TAIL_CHARS)));
      return {
        channel: channelStream(ch),
        onData: (l) => ch.on("data", (d: Buffer) => l(new Uint8Array(d.buffer, d.byteOffset, d.byteLength))),
        onClose(l) {
          // The channel's close, or the connection's if that comes first: once either way.
          let told = false;
          const once = () => {
            if (told) return;
            told = true;
            l();
          };
          ch.once("close", once);
          conn.client.once("close", once);
        },
        stderrTail: () => stderr,
      };
    },
    end: () => conn.end(),
    onLost(listener) {
      lost.on(listener);
    },
  };
}

/**
 * Opens a link. Resolves null when `start` is false and no daemon runs there (or no verified
 * binary is there and `upload` is false): the remote host has no persistent sessions.
 */
export async function openLink(ssh: SshParams, opts: LinkOptions): Promise<RemoteLink | null> {
  return linkOver(await sshTransport(ssh, opts), opts);
}
