/**
 * Opening an authenticated SSH connection: resolve the host through ~/.ssh/config, walk the
 * ProxyJump chain (each hop authenticated and host-key checked on its own, the next one tunnelled
 * through it with direct-tcpip), and map every way this can fail to one clear, distinct error
 * within a bounded time. Time spent waiting for the human (a passphrase, a password) does not
 * count against the connect timeout.
 */
import { lookup } from "node:dns/promises";
import { isIP, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Client, type Algorithms, type ConnectConfig } from "ssh2";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { agentSocket, authHandler, type AuthReport, type AuthShared, type Elicit } from "./auth.ts";
import { parseHop, resolveHost, type ResolvedHost, type SshConfigFiles } from "./ssh-config.ts";
import { addKnownHost, checkHostKey, fingerprint, keyTypeOf, knownTypes } from "./known-hosts.ts";

const log = logger("ssh");

/** Default bound on reaching a host and logging in (DNS, TCP, handshake, authentication). */
export const DEFAULT_CONNECT_TIMEOUT_S = 15;
/** Default keepalive: a silently dropped connection is noticed after interval × (count + 1). */
export const DEFAULT_KEEPALIVE_S = 10;
export const DEFAULT_KEEPALIVE_COUNT = 3;

/**
 * Ciphers Bun's crypto implements: chacha20-poly1305 is missing there, and ssh2 would otherwise
 * offer it (and fail when a server picks it).
 */
export const CIPHERS = ["aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr"];
/** Host key algorithms ssh2 supports, in its order of preference. */
const HOST_KEY_ALGOS = [
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "rsa-sha2-512",
  "rsa-sha2-256",
  "ssh-rsa",
];

export interface SshParams {
  host: string;
  user?: string;
  port?: number;
  identity_file?: string;
  jump?: string;
  forward_agent?: boolean;
  host_key?: "strict" | "accept-new";
  keepalive_s?: number;
  connect_timeout_s?: number;
  /** Host the remote shell in a ptyhub daemon on the host, so it survives dropped connections (src/remote). */
  remote_persist?: boolean;
  /** Reattach to this persistent session of the host's daemon instead of opening one (src/remote). */
  resume?: string;
}

export interface SshConnection {
  /** The target's client; the others are jump hosts, outermost first. */
  client: Client;
  hops: Client[];
  host: ResolvedHost;
  /** The agent socket to forward, when forward_agent was asked for. */
  agentForward: boolean;
  /** Ends every hop (target first). */
  end(): void;
}

export interface ConnectOptions {
  elicit?: Elicit;
  signal?: AbortSignal;
  configFiles?: SshConfigFiles;
}

/** A timer that stops while the human is being asked something. */
class Deadline {
  private end: number;
  private pausedAt = 0;
  private depth = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private fire!: () => void;
  readonly expired: Promise<void>;
  fired = false;

  constructor(readonly ms: number) {
    this.end = Date.now() + ms;
    this.expired = new Promise((resolve) => (this.fire = resolve));
    this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.depth > 0 || this.fired) return;
    this.timer = setTimeout(
      () => {
        if (this.depth > 0) return;
        if (Date.now() >= this.end) {
          this.fired = true;
          this.fire();
        } else this.arm();
      },
      Math.max(0, this.end - Date.now()),
    );
  }

  async human<T>(p: Promise<T>): Promise<T> {
    if (this.depth++ === 0) {
      this.pausedAt = Date.now();
      if (this.timer) clearTimeout(this.timer);
    }
    try {
      return await p;
    } finally {
      if (--this.depth === 0) {
        this.end += Date.now() - this.pausedAt;
        this.arm();
      }
    }
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

function describe(h: ResolvedHost): string {
  return `${h.hostname}:${h.port}`;
}

function connectFailed(message: string, hint: string): AppError {
  return new AppError("SSH_CONNECT_FAILED", message, hint);
}

/** Races `p` against the deadline and the caller's cancellation. */
async function bounded<T>(
  p: Promise<T>,
  deadline: Deadline,
  signal: AbortSignal | undefined,
  onTimeout: () => AppError,
): Promise<T> {
  let abortListener: (() => void) | null = null;
  const aborted = new Promise<never>((_, reject) => {
    if (!signal) return;
    abortListener = () =>
      reject(new AppError("SSH_CONNECT_FAILED", "the call was cancelled while connecting", "Retry term_open."));
    if (signal.aborted) abortListener();
    else signal.addEventListener("abort", abortListener, { once: true });
  });
  const expired = deadline.expired.then(() => Promise.reject(onTimeout()));
  // Whichever loses the race must not surface later as an unhandled rejection.
  expired.catch(() => undefined);
  aborted.catch(() => undefined);
  p.catch(() => undefined);
  try {
    return await Promise.race([p, aborted, expired]);
  } finally {
    if (abortListener && signal) signal.removeEventListener("abort", abortListener);
  }
}

async function tcpConnect(h: ResolvedHost, deadline: Deadline, signal?: AbortSignal): Promise<Socket> {
  const secs = Math.round(deadline.ms / 1000);
  let addresses = [h.hostname];
  if (!isIP(h.hostname)) {
    try {
      const found = await bounded(lookup(h.hostname, { all: true }), deadline, signal, () =>
        connectFailed(
          `DNS lookup of '${h.hostname}' got no answer within ${secs} s`,
          "Check the network and DNS, or use an IP address.",
        ),
      );
      addresses = found.map((a) => a.address);
    } catch (err) {
      if (err instanceof AppError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? "";
      throw connectFailed(
        `cannot resolve host '${h.hostname}' (DNS: ${code || (err as Error).message})`,
        h.alias !== h.hostname
          ? `Check HostName for '${h.alias}' in ~/.ssh/config.`
          : "Check the host name's spelling, or define it as a Host alias in ~/.ssh/config.",
      );
    }
  }
  // Like ssh, each address in turn (a dual-stack name whose IPv6 route is broken still connects over IPv4).
  let failure: AppError | null = null;
  for (const address of addresses) {
    try {
      return await tcpConnectOne(h, address, deadline, signal);
    } catch (err) {
      failure = err as AppError;
      if (deadline.fired || signal?.aborted) break;
    }
  }
  throw failure ?? connectFailed(`no address for '${h.hostname}'`, "Check the host name.");
}

async function tcpConnectOne(
  h: ResolvedHost,
  address: string,
  deadline: Deadline,
  signal?: AbortSignal,
): Promise<Socket> {
  const secs = Math.round(deadline.ms / 1000);
  const sock = new Socket();
  const connected = new Promise<Socket>((resolve, reject) => {
    sock.once("connect", () => resolve(sock));
    sock.once("error", reject);
  });
  sock.connect({ host: address, port: h.port });
  try {
    return await bounded(connected, deadline, signal, () =>
      connectFailed(
        `no answer from ${describe(h)} within ${secs} s (connect timeout)`,
        "The host may be down, or a firewall drops the packets. Check the address and port; raise connect_timeout_s " +
          "for slow links.",
      ),
    );
  } catch (err) {
    sock.destroy();
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "ECONNREFUSED")
      throw connectFailed(
        `connection refused by ${describe(h)}`,
        "Nothing listens there: check the port (ssh.port or Port in ~/.ssh/config) and that sshd runs.",
      );
    if (
      code === "EHOSTUNREACH" ||
      code === "ENETUNREACH" ||
      code === "EHOSTDOWN" ||
      code === "ENETDOWN" ||
      code === "EADDRNOTAVAIL"
    ) {
      throw connectFailed(
        `host ${describe(h)} is unreachable (${code})`,
        "Check the address, the network and any VPN; a jump host (ssh.jump) may be needed.",
      );
    }
    if (code === "ETIMEDOUT")
      throw connectFailed(
        `no answer from ${describe(h)} (connect timed out)`,
        "The host may be down, or a firewall drops the packets.",
      );
    throw connectFailed(`cannot connect to ${describe(h)}: ${(err as Error).message}`, "Check the host and port.");
  }
}

interface HopOptions {
  hostKey: "strict" | "accept-new";
  keepaliveS: number | undefined;
  forwardAgent: boolean;
  shared: AuthShared;
  deadline: Deadline;
  signal?: AbortSignal;
  /** "jump host x" / "" for the final target: said in errors. */
  role: string;
}

/** One SSH hop over an open stream: handshake, host key check, authentication. */
async function sshHop(h: ResolvedHost, sock: Duplex, o: HopOptions): Promise<Client> {
  const secs = Math.round(o.deadline.ms / 1000);
  const client = new Client();
  const report: AuthReport = { tried: [], serverMethods: null };
  let hostKeyError: AppError | null = null;
  let pendingKnownHost: Buffer | null = null;
  let phase = "handshake" as "handshake" | "auth";
  let lastError: Error | null = null;
  const role = o.role ? ` (${o.role})` : "";
  const files = [...h.knownHostsFiles, ...h.globalKnownHostsFiles];
  const known = knownTypes(files, h.hostKeyName, h.port);
  const preferred = HOST_KEY_ALGOS.filter(
    (a) => known.includes(a) || (a.startsWith("rsa-sha2") && known.includes("ssh-rsa")),
  );
  const algorithms: Algorithms = {
    cipher: CIPHERS as Algorithms["cipher"],
    serverHostKey: [
      ...preferred,
      ...HOST_KEY_ALGOS.filter((a) => !preferred.includes(a)),
    ] as Algorithms["serverHostKey"],
  };
  const keepaliveS = o.keepaliveS ?? h.serverAliveInterval ?? DEFAULT_KEEPALIVE_S;

  const config: ConnectConfig = {
    sock: sock as ConnectConfig["sock"],
    username: h.user,
    readyTimeout: 0, // Our own deadline, which pauses while the human is asked.
    keepaliveInterval: keepaliveS * 1000,
    keepaliveCountMax: h.serverAliveCountMax ?? DEFAULT_KEEPALIVE_COUNT,
    algorithms,
    authHandler: authHandler(h, o.shared, report),
    hostVerifier: (key: Buffer) => {
      const type = keyTypeOf(key);
      const fp = fingerprint(key);
      const verdict = checkHostKey(files, h.hostKeyName, h.port, key);
      if (verdict.status === "known") return true;
      if (verdict.status === "mismatch") {
        const where = verdict.entry ? ` (known key: ${verdict.entry.file}:${verdict.entry.line})` : "";
        hostKeyError = new AppError(
          "SSH_HOST_KEY_MISMATCH",
          verdict.revoked
            ? `the host key of ${describe(h)}${role} is marked @revoked in known_hosts: ${type} ${fp}`
            : verdict.entry
              ? `the host key of ${describe(h)}${role} has CHANGED: it presented ${type} ${fp}, which does not match ` +
                `known_hosts${where}. Someone may be intercepting the connection (man-in-the-middle), or the host ` +
                `was reinstalled`
              : `${describe(h)}${role} presented a ${type} key (${fp}), but known_hosts has only ` +
                `${verdict.knownTypes.join(", ")} keys for it: refusing to connect`,
          `Not connected. If the change is expected, verify the new fingerprint out of band, then remove the old ` +
            `entry (ssh-keygen -R ${h.port === 22 ? h.hostKeyName : `'[${h.hostKeyName}]:${h.port}'`}) and connect ` +
            `again with host_key: "accept-new".`,
          false,
        );
        return false;
      }
      if (o.hostKey === "accept-new") {
        // Recorded once the handshake proves the server holds the private key (see 'handshake').
        pendingKnownHost = key;
        return true;
      }
      hostKeyError = new AppError(
        "SSH_HOST_KEY_UNKNOWN",
        `the host key of ${describe(h)}${role} is not in known_hosts: ${type} ${fp}`,
        `Verify the fingerprint out of band, then call term_open again with ssh.host_key: "accept-new" to record it, ` +
          `or add it to ~/.ssh/known_hosts (e.g. run ssh once).`,
        false,
      );
      return false;
    },
  };
  if (o.forwardAgent && o.shared.agentSock) config.agent = o.shared.agentSock;

  const ready = new Promise<void>((resolve, reject) => {
    client.once("ready", () => resolve());
    client.on("handshake", () => {
      phase = "auth";
      if (pendingKnownHost) {
        const file = h.knownHostsFiles[0];
        if (file) {
          try {
            addKnownHost(file, h.hostKeyName, h.port, pendingKnownHost, h.hashKnownHosts);
            log.info(`recorded ${keyTypeOf(pendingKnownHost)} host key of ${describe(h)} in ${file}`);
          } catch (err) {
            log.warn(`cannot record the host key in ${file}`, err);
          }
        }
        pendingKnownHost = null;
      }
    });
    client.on("error", (err: Error & { level?: string }) => {
      // Agent errors (a key the human declined to unlock, a dead agent) only skip that key.
      if (err.level === "agent") {
        log.debug(`agent: ${err.message}`);
        return;
      }
      lastError = err;
      if (
        err.level === "client-authentication" ||
        err.level === "handshake" ||
        err.level === "protocol" ||
        err.level === "client-socket" ||
        err.level === "client-timeout" ||
        !err.level
      )
        reject(err);
    });
    client.once("close", () => reject(lastError ?? new Error("connection closed")));
  });
  // An error after the connection is up is the session's business (see backend); before, ours.
  client.connect(config);
  try {
    await bounded(ready, o.deadline, o.signal, () =>
      phase === "handshake"
        ? connectFailed(
            `${describe(h)}${role} accepted the connection but completed no SSH handshake within ${secs} s`,
            "Is an SSH server listening on that port? Raise connect_timeout_s for slow links.",
          )
        : connectFailed(
            `logging in to ${describe(h)}${role} did not finish within ${secs} s`,
            "The server is slow to authenticate (DNS lookups of clients, PAM); raise connect_timeout_s.",
          ),
    );
    return client;
  } catch (err) {
    client.destroy();
    if (hostKeyError) throw hostKeyError;
    if (err instanceof AppError) throw err;
    const e = err as Error & { level?: string };
    if (e.level === "client-authentication" || phase === "auth") throw authError(h, role, report, o.shared);
    if (/before handshake|ECONNRESET|closed/i.test(e.message)) {
      throw connectFailed(
        `${describe(h)}${role} closed the connection before the SSH handshake (${e.message})`,
        "Is it an SSH server? It may also refuse this client (MaxStartups, tcp wrappers, fail2ban).",
      );
    }
    throw connectFailed(
      `SSH handshake with ${describe(h)}${role} failed: ${e.message}`,
      "The server may offer no algorithm this client supports.",
    );
  }
}

/** What to do when no human can be asked for a login secret. */
const NO_HUMAN_HINT =
  "Load the key into ssh-agent (ssh-add) before starting ptyhub, or use a key without a passphrase; or open a " +
  "local session, run `ssh` in it and let the human type the secret in `ptyhub attach <session>`.";

function authError(h: ResolvedHost, role: string, report: AuthReport, shared: AuthShared): AppError {
  const who = `${h.user}@${describe(h)}${role}`;
  const tried = report.tried.length > 0 ? report.tried.join(", ") : "nothing usable (no agent, no identity files)";
  const accepts = report.serverMethods ? `; the server accepts: ${report.serverMethods.join(", ")}` : "";
  if (shared.declined && shared.unasked) {
    return new AppError(
      "ELICITATION_UNSUPPORTED",
      `login to ${who} needs a password or passphrase from the human, and nobody was asked: ${shared.unasked}`,
      NO_HUMAN_HINT,
      false,
    );
  }
  if (shared.declined) {
    const why = shared.unanswered
      ? `the question to the human failed (${shared.unanswered})`
      : "the human declined to answer";
    return new AppError(
      "SSH_AUTH_FAILED",
      `login to ${who} failed: ${why}`,
      "Call term_open again when the human is ready to answer.",
      false,
    );
  }
  if (!shared.elicit && shared.needsHuman.length > 0) {
    return new AppError(
      "ELICITATION_UNSUPPORTED",
      `login to ${who} needs ${[...new Set(shared.needsHuman)].join(" and ")} (tried: ${tried}), and this MCP client ` +
        `cannot ask the human (no elicitation support)`,
      NO_HUMAN_HINT,
      false,
    );
  }
  return new AppError(
    "SSH_AUTH_FAILED",
    `login to ${who} failed (tried: ${tried}${accepts})`,
    "Check the user name (ssh.user or User in ~/.ssh/config), install your public key in the server's " +
      "authorized_keys, load it into ssh-agent, or name it with ssh.identity_file.",
    false,
  );
}

/** Opens a tunnel from a jump host to the next hop. */
function forward(
  via: Client,
  h: ResolvedHost,
  viaName: string,
  deadline: Deadline,
  signal?: AbortSignal,
): Promise<Duplex> {
  const secs = Math.round(deadline.ms / 1000);
  const opened = new Promise<Duplex>((resolve, reject) => {
    via.forwardOut("127.0.0.1", 0, h.hostname, h.port, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
  return bounded(opened, deadline, signal, () =>
    connectFailed(
      `jump host ${viaName} did not open a tunnel to ${describe(h)} within ${secs} s`,
      "The target may be down or filtered from the jump host.",
    ),
  ).catch((err: Error) => {
    if (err instanceof AppError) throw err;
    const reason = err.message.replace(/^\(SSH\) /, "");
    throw connectFailed(
      `jump host ${viaName} cannot reach ${describe(h)}: ${reason}`,
      /prohibited|administratively/i.test(reason)
        ? "The jump host forbids TCP forwarding (AllowTcpForwarding)."
        : "Check the target's name and port as seen from the jump host.",
    );
  });
}

function hopHost(text: string, files: SshConfigFiles | undefined): ResolvedHost {
  return resolveHost(parseHop(text), files);
}

/** Connects, authenticates and returns the connection to the target (through jump hosts). */
export async function connectSsh(p: SshParams, o: ConnectOptions = {}): Promise<SshConnection> {
  const spec = parseHop(p.host);
  const target = resolveHost(
    { host: spec.host, user: p.user ?? spec.user, port: p.port ?? spec.port, identityFile: p.identity_file },
    o.configFiles,
  );
  const jumpText = p.jump !== undefined ? (p.jump.trim().toLowerCase() === "none" ? null : p.jump) : target.proxyJump;
  const jumps = jumpText
    ? jumpText
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => hopHost(s, o.configFiles))
    : [];
  const timeoutS = p.connect_timeout_s ?? target.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_S;
  const deadline = new Deadline(timeoutS * 1000);
  const agentSock = agentSocket();
  if (p.forward_agent && !agentSock) {
    deadline.cancel();
    throw new AppError(
      "INVALID_ARGUMENT",
      "forward_agent needs a running ssh-agent, and SSH_AUTH_SOCK names none here",
      "Start ssh-agent and add your key (ssh-add) in the environment ptyhub runs in, or open the session without " +
        "forward_agent.",
    );
  }
  const shared: AuthShared = {
    elicit: undefined,
    humanWait: (q) => deadline.human(q),
    decrypted: new Map(),
    needsHuman: [],
    declined: false,
    agentSock,
  };
  if (o.elicit) {
    const ask = o.elicit;
    // A question that fails (the client timed out, went away) counts as no answer, said in the error.
    shared.elicit = (message, schema, options) =>
      ask(message, schema, options).then(
        (answer) => {
          // The client refused by itself (src/mcp/unasked.ts): the error says nobody was asked.
          if (answer.unaskedWhy) shared.unasked = answer.unaskedWhy;
          return answer;
        },
        (err: Error) => {
          shared.unanswered = err.message;
          return { action: "cancel" as const };
        },
      );
  }
  const clients: Client[] = [];
  const endAll = () => {
    for (const c of [...clients].reverse()) {
      try {
        c.end();
      } catch {
        // Already gone.
      }
    }
  };
  try {
    const chain = [...jumps, target];
    let stream: Duplex | null = null;
    for (let i = 0; i < chain.length; i++) {
      const h = chain[i]!;
      const isTarget = i === chain.length - 1;
      const role = isTarget
        ? jumps.length > 0
          ? `via ${jumps.map((j) => j.alias).join(",")}`
          : ""
        : `jump host ${h.alias}`;
      if (stream === null) stream = await tcpConnect(h, deadline, o.signal);
      const client = await sshHop(h, stream, {
        hostKey: p.host_key ?? "strict",
        keepaliveS: isTarget ? p.keepalive_s : undefined,
        forwardAgent: isTarget && p.forward_agent === true,
        shared,
        deadline,
        signal: o.signal,
        role,
      });
      clients.push(client);
      if (!isTarget) stream = await forward(client, chain[i + 1]!, h.alias, deadline, o.signal);
    }
  } catch (err) {
    endAll();
    throw err;
  } finally {
    deadline.cancel();
  }
  const client = clients[clients.length - 1]!;
  return { client, hops: clients.slice(0, -1), host: target, agentForward: p.forward_agent === true, end: endAll };
}
