/** term_open's `ssh` parameter: the contract's part that belongs to this kind (layered with src/api). */
import { z } from "zod";

/** term_open's `ssh` object (SPEC.md); the connection itself is src/backend/ssh/ssh-backend.ts. */
export const sshParams = z.strictObject({
  host: z
    .string()
    .min(1)
    .max(255)
    .describe(
      "Host name, IP or ~/.ssh/config alias (HostName, User, Port, IdentityFile, ProxyJump… apply); user@host and " +
        "host:port also work.",
    ),
  user: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("Remote user (default: User from ~/.ssh/config, else the local user)."),
  port: z.number().int().min(1).max(65535).optional().describe("Port (default: Port from ~/.ssh/config, else 22)."),
  identity_file: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe(
      "Private key to try (after ssh-agent keys). Its passphrase, if any, is asked of the human, never passed here.",
    ),
  jump: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'ProxyJump: [user@]host[:port], comma-separated for several hops; overrides ~/.ssh/config; "none" disables it.',
    ),
  forward_agent: z.boolean().optional().describe("Forward the local ssh-agent to the host (default false)."),
  host_key: z
    .enum(["strict", "accept-new"])
    .optional()
    .describe(
      "strict (default): the host key must be in ~/.ssh/known_hosts. accept-new: record an unknown host's key; a " +
        "changed key is refused either way.",
    ),
  keepalive_s: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .optional()
    .describe(
      "Keepalive interval in seconds (default: ServerAliveInterval, else 10); a host silent for 4 intervals ends the " +
        "session.",
    ),
  connect_timeout_s: z
    .number()
    .int()
    .min(1)
    .max(300)
    .optional()
    .describe(
      "Bound on connecting and logging in, without time spent waiting for the human (default: ConnectTimeout, else " +
        "15).",
    ),
  remote_persist: z
    .boolean()
    .optional()
    .describe(
      "Run the shell in a ptyhub daemon on the remote host (installed there by ptyhub, no root): it survives dropped " +
        "connections; ptyhub reconnects, and what ran meanwhile is read once (default false).",
    ),
  resume: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Reattach to this remote persistent session (ids from term_list {ssh_host}), from any machine or after a " +
        "restart.",
    ),
});

/** The `ssh` field of term_open. */
export const sshOpenParam = sshParams
  .optional()
  .describe(
    "Open over SSH: a remote login shell (or `command` on the remote host) on a PTY. Passwords and passphrases are " +
      "asked of the human, never passed as arguments.",
  );
