/**
 * `term_list {ssh_host}`: the persistent sessions of a host's ptyhub daemon, resumable with
 * `ssh.resume`. Looking never installs anything nor starts a daemon: a host without either has none.
 */
import type { Elicit } from "../auth.ts";
import type { SshParams } from "../connect.ts";
import { openLink } from "./link.ts";

export interface RemoteSessionInfo {
  session: string;
  state: string;
  idle_ms: number;
  created_at: string;
  attached: boolean;
}

export async function listRemoteSessions(
  ssh: SshParams,
  ctx: { elicit?: Elicit; signal?: AbortSignal; clientId: string },
): Promise<RemoteSessionInfo[]> {
  const link = await openLink(ssh, { start: false, upload: false, elicit: ctx.elicit, signal: ctx.signal });
  if (!link) return [];
  try {
    const sessions = await link.client.invoke("list", {}, { clientId: ctx.clientId });
    return sessions.map((s) => ({
      session: s.session,
      state: s.state,
      idle_ms: s.idle_ms,
      created_at: s.created_at,
      attached: s.attached,
    }));
  } finally {
    link.close();
  }
}
