/**
 * Attaching a local session to a shell in a far side's ptyhub daemon (an SSH host, a container):
 * the shell is opened there (or found there, on resume) with shell integration done there, and a
 * RemotePersistBackend receives its raw bytes. The local session parses the far side's marks with
 * that session's nonce, so nothing is injected twice and exit codes are exact.
 */
import type { RemoteLink } from "./bridge-link.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import { RemotePersistBackend, type LinkReach, type RawAttachReply } from "./remote-backend.ts";

/** What the far side's daemon opens: the same for every far side. */
export interface RemoteSessionProgram {
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

/**
 * Opens the program in the far side's daemon (or, with `resume`, finds that session there) and
 * attaches a RemotePersistBackend to it over `link`. The caller closes the link on failure.
 */
export async function attachRemoteSession(
  req: RemoteSessionProgram,
  link: RemoteLink,
  reach: LinkReach,
  resume?: string,
): Promise<RemoteOpened> {
  let remoteId = resume;
  if (remoteId === undefined) {
    // Opened there like any session of that side's daemon: in its home unless told otherwise.
    const params = {
      command: req.command,
      args: req.args,
      env: req.env,
      cols: req.cols,
      rows: req.rows,
      cwd: req.cwd ?? "~",
      persistent: true,
    };
    const opened = await link.client.invoke("open", params, { clientId: `remote:${process.pid}` });
    remoteId = opened.session;
  }
  const backend = new RemotePersistBackend(reach, remoteId, req.cols, req.rows);
  let reply: RawAttachReply;
  try {
    reply = await backend.attach(link);
  } catch (err) {
    // A shell we just opened there must not be left running with nobody to resume it.
    const caller = { clientId: `remote:${process.pid}` };
    if (resume === undefined) {
      await link.client.invoke("close", { session: remoteId }, caller).catch(() => undefined);
    }
    throw err;
  }
  const target = `${link.target} remote session ${remoteId}`;
  return { backend, integration: reply.integration, family: reply.family, nonce: reply.nonce, target };
}
