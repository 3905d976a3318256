/**
 * A private OpenSSH server for the SSH tests: Debian's /usr/sbin/sshd on 127.0.0.1 at an ephemeral
 * port, with its own config, host key and authorized_keys in a temp dir. Stopping it also ends the
 * per-connection sshd processes it forked (they would otherwise outlive the listener and count as
 * leftovers of the test run), found by walking /proc for its descendants.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { waitFor } from "../helpers/wait.ts";

/** How long sshd may take to listen and greet on a loaded machine. */
const SSHD_START_MS = 10_000;

export const SSHD = "/usr/sbin/sshd";
export const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
export const haveSshd = existsSync(SSHD) && Bun.which("ssh-keygen") !== null;

/** A directory for this test file's keys and configs, removed with the run's root. */
export function scratchDir(prefix: string): string {
  const base = process.env.PTYHUB_TEST_ROOT ? join(process.env.PTYHUB_TEST_ROOT, "tmp") : tmpdir();
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}

export async function run(
  argv: string[],
  opts: { env?: Record<string, string>; stdin?: string } = {},
): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(argv, {
    env: { ...(process.env as Record<string, string>), ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, out, err };
}

/** Generates a key pair with ssh-keygen; returns the private key's path (the public one is path + ".pub"). */
export async function keygen(
  path: string,
  opts: { type?: string; passphrase?: string; comment?: string } = {},
): Promise<string> {
  // A fresh key is asked for: ssh-keygen would ask before overwriting one an earlier test file left
  // at the same path (~/.ssh/id_ed25519 of the run's HOME), and fail with no terminal to answer.
  rmSync(path, { force: true });
  rmSync(`${path}.pub`, { force: true });
  // Few KDF rounds: decrypting a passphrase-protected key costs ~70 ms per round in ssh2's pure-JS bcrypt.
  const r = await run([
    "ssh-keygen",
    "-q",
    "-t",
    opts.type ?? "ed25519",
    "-a",
    "2",
    "-N",
    opts.passphrase ?? "",
    "-C",
    opts.comment ?? "ptyhub-test",
    "-f",
    path,
  ]);
  if (r.code !== 0) throw new Error(`ssh-keygen failed: ${r.err}`);
  return path;
}

/** A TCP port nothing listens on right now (bind port 0, read it, release it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Pids of every descendant of `pid` (children first found, then theirs). */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(name));
      parents.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

export function killQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

export interface SshdOptions {
  /** Extra sshd_config lines. */
  extra?: string[];
  /** authorized_keys content. */
  authorizedKeys?: string;
  password?: boolean;
}

export interface Sshd {
  port: number;
  /** The listening sshd. */
  pid: number;
  dir: string;
  /** The host key's public line: "ssh-ed25519 AAAA… comment". */
  hostKeyPub: string;
  /** Writes authorized_keys (sshd reads it per login). */
  authorize(keys: string): void;
  /** The per-connection sshd processes currently serving clients. */
  connections(): number[];
  stop(): Promise<void>;
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  if (!existsSync("/run/sshd")) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  // Not under the run's private root: sshd reads authorized_keys as the logged-in user.
  const dir = mkdtempSync("/tmp/ptyhub-sshd-");
  chmodSync(dir, 0o755);
  const hostKey = await keygen(join(dir, "host_ed25519"));
  const authorizedKeysFile = join(dir, "authorized_keys");
  writeFileSync(authorizedKeysFile, opts.authorizedKeys ?? "", { mode: 0o644 });
  const port = await freePort();
  // sshd keeps the first value of a keyword: the caller's extra lines come first.
  const lines = [
    ...(opts.extra ?? []),
    `ListenAddress 127.0.0.1`,
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, "sshd.pid")}`,
    `AuthorizedKeysFile ${authorizedKeysFile}`,
    `StrictModes no`,
    `UsePAM ${opts.password ? "yes" : "no"}`,
    `PasswordAuthentication ${opts.password ? "yes" : "no"}`,
    `KbdInteractiveAuthentication ${opts.password ? "yes" : "no"}`,
    `PubkeyAuthentication yes`,
    `PermitRootLogin prohibit-password`,
    `AllowAgentForwarding yes`,
    `AllowTcpForwarding yes`,
    `PrintMotd no`,
    `PrintLastLog no`,
    `UseDNS no`,
    `LogLevel ${process.env.SSHD_LOGLEVEL ?? "ERROR"}`,
    `MaxAuthTries 20`,
    `LoginGraceTime 30`,
    `Subsystem sftp internal-sftp`,
  ];
  const config = join(dir, "sshd_config");
  writeFileSync(config, lines.join("\n") + "\n", { mode: 0o644 });
  const proc = Bun.spawn([SSHD, "-D", "-e", "-f", config, "-p", String(port)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) {
      stderr += new TextDecoder().decode(chunk);
      if (process.env.SSHD_LOGLEVEL) process.stderr.write(new TextDecoder().decode(chunk));
    }
  })();
  // Ready when the port greets with an SSH banner.
  const up = async () => {
    if (proc.exitCode !== null) throw new Error(`sshd exited: ${stderr}`);
    return greets(port);
  };
  await waitFor(up, SSHD_START_MS, "sshd to greet").catch((err: Error) => {
    proc.kill("SIGKILL");
    throw new Error(`${err.message}: ${stderr}`);
  });
  return {
    port,
    pid: proc.pid,
    dir,
    hostKeyPub: readFileSync(hostKey + ".pub", "utf8").trim(),
    authorize(keys) {
      writeFileSync(authorizedKeysFile, keys, { mode: 0o644 });
    },
    connections() {
      return descendants(proc.pid).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("sshd");
        } catch {
          return false;
        }
      });
    },
    async stop() {
      const kids = descendants(proc.pid);
      proc.kill("SIGKILL");
      for (const pid of kids) killQuietly(pid);
      await proc.exited;
      // Children forked between the walk and the kill.
      for (const pid of descendants(proc.pid)) killQuietly(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      resolve(ok);
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data(sock, data) {
          finish(new TextDecoder().decode(data).startsWith("SSH-"));
          sock.end();
        },
        error: () => finish(false),
        close: () => finish(false),
        connectError: () => finish(false),
      },
    }).catch(() => finish(false));
    setTimeout(() => finish(false), 1000);
  });
}

/** A local user with a password, for password and keyboard-interactive logins (root only). */
export interface TestUser {
  name: string;
  password: string;
  home: string;
  remove(): Promise<void>;
}

export async function createTestUser(shell = "/bin/sh"): Promise<TestUser> {
  const name = `ptyhub-t${process.pid}`;
  const password = `pw-${crypto.randomUUID().slice(0, 12)}`;
  await run(["userdel", "-r", name]); // A leftover of an aborted run.
  const add = await run(["useradd", "-m", "-s", shell, name]);
  if (add.code !== 0) throw new Error(`useradd failed: ${add.err}`);
  const pw = await run(["chpasswd"], { stdin: `${name}:${password}\n` });
  if (pw.code !== 0) throw new Error(`chpasswd failed: ${pw.err}`);
  return {
    name,
    password,
    home: `/home/${name}`,
    async remove() {
      await run(["userdel", "-r", "-f", name]);
    },
  };
}

/** The local user's name (os.userInfo() answers "unknown" under Bun in some containers). */
export const currentUser = (() => {
  const uid = process.getuid?.() ?? -1;
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const f = line.split(":");
    if (Number(f[2]) === uid) return f[0]!;
  }
  return process.env.USER ?? userInfo().username;
})();

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
