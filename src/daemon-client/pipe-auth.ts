/**
 * Proof that both ends of a daemon connection belong to the same user, where the transport cannot
 * say so: a Windows named pipe. On POSIX the socket sits in a 0700 directory and the daemon checks
 * the peer's uid (server.ts); that is enough both ways, since nobody else can create a socket in
 * our directory. A pipe name has no directory: another local user can create
 * `\\.\pipe\ptyhub-alice` before alice's daemon does, and alice's clients would hand the impostor
 * their commands (and the secrets typed through them).
 *
 * Why a shared key rather than the kernel's word (GetNamedPipeServerProcessId /
 * GetNamedPipeClientProcessId and the peer token's user SID through advapi32): Bun's socket API
 * offers no documented way to the pipe's HANDLE, so there is nothing to ask those calls about; and
 * Wine runs every program as one user, so only a key can be tested there both ways, refusals
 * included. The key works whatever Bun exposes, on real Windows as under Wine.
 *
 * The key: 32 random bytes in a file of the daemon's private directory (daemon-paths.ts: under the
 * user's profile unless XDG_STATE_HOME moves it; a profile's inherited ACL grants only the user,
 * SYSTEM and Administrators; 0600 where modes mean something). Whoever comes first (daemon or
 * client) creates it, exclusively; both read it at each connection, so a removed key file heals on
 * the next one.
 *
 * The exchange (mutual challenge–response; each side's nonce is fresh, so nothing can be replayed,
 * and each proof names its role, so one side's proof cannot be reflected back as the other's):
 *
 *   daemon → client   hello {challenge: Dn}                         (as soon as the client connects)
 *   client → daemon   hello {challenge: Cn}                         (nothing else before the proof)
 *   daemon → client   auth  {proof: HMAC(key, "daemon" Dn Cn)}      the client checks it, else refuses
 *   client → daemon   auth  {proof: HMAC(key, "client" Dn Cn)}      the daemon checks it, else `fatal`
 *
 * A squatter learns the client's hello (its version, pid and a fresh nonce) and nothing else: the
 * client sends no call before the daemon's proof checks out. A client without the key gets the
 * daemon's hello and proof, and then a `fatal` (also when it stays silent: server.ts gives it 10 s).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { AppError } from "../api/errors.ts";

/** Bytes of key and of each nonce: 256 bits, far beyond guessing. */
const KEY_BYTES = 32;
const NONCE_BYTES = 32;
/** A key file holds the key in hex and nothing else (a newline allowed). */
const KEY_FILE_SHAPE = /^([0-9a-f]{64})\s*$/;
/** Tags the proofs: a proof made for another purpose (or version of this one) never matches. */
const PROOF_CONTEXT = "ptyhub-pipe-auth/1";

export type ProofRole = "daemon" | "client";

/** The file the key lives in, by the daemon's private directory. */
export const KEY_FILE_NAME = "daemon.key";

/**
 * The user's key from `path`, created (exclusively: written to a file of our own, then linked into
 * place, so a concurrent reader never sees half a key and two creators agree on one) when absent.
 */
export function loadOrCreateKey(path: string): Buffer {
  const existing = readKey(path);
  if (existing) return existing;
  const draft = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(draft, "wx", 0o600);
  try {
    writeSync(fd, `${randomBytes(KEY_BYTES).toString("hex")}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, path);
  } catch (err) {
    // Someone else's key got there first: theirs is the one.
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    unlinkSync(draft);
  }
  const key = readKey(path);
  if (!key) throw badKeyFile(path);
  return key;
}

/** The key in `path`, null when there is no such file; throws on a file that holds no key. */
function readKey(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const hex = KEY_FILE_SHAPE.exec(text)?.[1];
  if (!hex) throw badKeyFile(path);
  return Buffer.from(hex, "hex");
}

function badKeyFile(path: string): AppError {
  return new AppError(
    "DAEMON_UNAVAILABLE",
    `the daemon's key file ${path} does not hold a key`,
    "Remove it (a new one is made on the next connection), then stop the running daemon if there is one.",
    false,
  );
}

/** A fresh challenge for the peer to prove the key against. */
export function newChallenge(): string {
  return randomBytes(NONCE_BYTES).toString("base64");
}

/** What `role` sends to prove it holds `key`, for this connection's two challenges. */
export function proveKey(key: Buffer, role: ProofRole, daemonChallenge: string, clientChallenge: string): string {
  return createHmac("sha256", key)
    .update(`${PROOF_CONTEXT}\n${role}\n${daemonChallenge}\n${clientChallenge}`)
    .digest("base64");
}

/** Whether `proof` is what `role` holding `key` would send (compared in constant time). */
export function checkProof(
  key: Buffer,
  role: ProofRole,
  daemonChallenge: string,
  clientChallenge: string,
  proof: string,
): boolean {
  const expected = Buffer.from(proveKey(key, role, daemonChallenge, clientChallenge));
  const got = Buffer.from(proof);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
