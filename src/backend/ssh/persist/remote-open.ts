/**
 * Opening a persistent remote session (`ssh.remote_persist`) or resuming one (`ssh.resume`): the
 * shell is opened in (or found in) the remote host's daemon, with shell integration done there, and
 * the local session is attached to it through a RemotePersistBackend. The local session parses
 * the remote marks with the remote session's nonce, so nothing is injected twice and exit codes
 * are exact, as in a direct SSH session.
 */
import { AppError } from "../../../api/errors.ts";
import type { Elicit } from "../auth.ts";
import type { SshParams } from "../connect.ts";
import { validateSessionId } from "../../../api/session-id.ts";
import { openLink } from "./link.ts";
import type { LinkReach } from "../../bridge/remote-backend.ts";
import { attachRemoteSession, type RemoteOpened, type RemoteSessionProgram } from "../../bridge/remote-attach.ts";

export interface RemoteOpenRequest extends RemoteSessionProgram {
  ssh: SshParams;
}

/** How an SSH persistent session reaches its host's daemon again. */
export function sshReach(ssh: SshParams): LinkReach {
  return {
    kind: "ssh",
    where: ssh.host,
    open: (opts) => openLink(ssh, opts),
    resumeHint: (id) => `resume it with term_open {ssh: {host, resume: "${id}"}}`,
    downCode: "SSH_CONNECT_FAILED",
  };
}

export async function openRemotePersist(
  req: RemoteOpenRequest,
  ctx: { elicit?: Elicit; signal?: AbortSignal },
): Promise<RemoteOpened> {
  const resume = req.ssh.resume;
  if (resume !== undefined) {
    validateSessionId(resume);
    if (req.command !== undefined || req.args !== undefined || req.cwd !== undefined) {
      throw new AppError(
        "INVALID_ARGUMENT",
        "ssh.resume reattaches to a running session: command, args and cwd do not apply",
        "Drop them, or open a new session with ssh.remote_persist.",
      );
    }
  }
  const start = resume === undefined;
  const link = await openLink(req.ssh, { start, upload: true, elicit: ctx.elicit, signal: ctx.signal });
  if (!link) {
    throw new AppError(
      "SESSION_NOT_FOUND",
      `no remote session '${resume}' on ${req.ssh.host}: no ptyhub daemon runs there`,
      "term_list {ssh_host} lists the remote persistent sessions; open a new one with ssh.remote_persist.",
    );
  }
  try {
    const { ssh: _ssh, ...program } = req;
    return await attachRemoteSession(program, link, sshReach(req.ssh), resume);
  } catch (err) {
    link.close();
    throw err;
  }
}
