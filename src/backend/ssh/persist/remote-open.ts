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
import type { Integration, ShellFamily } from "../../../terminal/shell-integration.ts";
import { validateSessionId } from "../../../api/session-id.ts";
import { openLink, type RemoteLink } from "./link.ts";
import { RemotePersistBackend, type RawAttachReply } from "./remote-backend.ts";

export interface RemoteOpenRequest {
  ssh: SshParams;
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  cols: number;
  rows: number;
}

export interface RemoteOpened {
  backend: RemotePersistBackend;
  integration: Integration;
  family: ShellFamily | null;
  nonce: string;
  target: string;
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
    return await attachSession(req, link);
  } catch (err) {
    link.close();
    throw err;
  }
}

async function attachSession(req: RemoteOpenRequest, link: RemoteLink): Promise<RemoteOpened> {
  let remoteId = req.ssh.resume;
  if (remoteId === undefined) {
    // Opened there like any session of that host's daemon: in the remote home unless told otherwise.
    const params = { ...req, ssh: undefined, cwd: req.cwd ?? "~", persistent: true };
    const opened = await link.client.invoke("open", params, { clientId: `remote:${process.pid}` });
    remoteId = opened.session;
  }
  const backend = new RemotePersistBackend(req.ssh, remoteId, req.cols, req.rows);
  let reply: RawAttachReply;
  try {
    reply = await backend.attach(link);
  } catch (err) {
    // A shell we just opened there must not be left running with nobody to resume it.
    const caller = { clientId: `remote:${process.pid}` };
    if (req.ssh.resume === undefined) {
      await link.client.invoke("close", { session: remoteId }, caller).catch(() => undefined);
    }
    throw err;
  }
  const target = `${link.target} remote session ${remoteId}`;
  return { backend, integration: reply.integration, family: reply.family, nonce: reply.nonce, target };
}
