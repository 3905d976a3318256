/**
 * known_hosts, as OpenSSH reads and writes it (sshd(8), SSH_KNOWN_HOSTS FILE FORMAT):
 *   [marker] hostpatterns keytype base64-key [comment]
 * Host patterns are comma-separated names with `*`/`?` wildcards and `!` negation; a non-22 port
 * is written `[host]:port`; hashed entries are `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`.
 * Markers: `@revoked` (a key that must never be accepted) and `@cert-authority` (a CA for host
 * certificates, which ptyhub does not use: skipped).
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { globMatch } from "./ssh-config.ts";

export interface KnownKey {
  file: string;
  line: number;
  type: string;
  key: Buffer;
  revoked: boolean;
}

export type HostKeyVerdict =
  | { status: "known"; entry: KnownKey }
  | { status: "unknown" }
  /** Keys are known for this host but not this one (changed, or a different type), or it is revoked. */
  | { status: "mismatch"; entry: KnownKey | null; revoked: boolean; knownTypes: string[] };

/** How a host is named in known_hosts: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** OpenSSH's SHA256 fingerprint: "SHA256:" + unpadded base64 of the key blob's digest. */
export function fingerprint(blob: Buffer): string {
  return "SHA256:" + createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
}

/** The key type named at the start of an SSH wire-format public key blob. */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return "unknown";
  const len = blob.readUInt32BE(0);
  if (len <= 0 || len > 64 || blob.length < 4 + len) return "unknown";
  return blob.subarray(4, 4 + len).toString("latin1");
}

function hostMatches(field: string, name: string): boolean {
  if (field.startsWith("|1|")) {
    const [, , salt, hash] = field.split("|");
    if (!salt || !hash) return false;
    const mac = createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64");
    return mac === hash;
  }
  let matched = false;
  for (const pattern of field.split(",")) {
    if (pattern.startsWith("!")) {
      if (globMatch(pattern.slice(1), name)) return false;
    } else if (globMatch(pattern, name)) {
      matched = true;
    }
  }
  return matched;
}

/** Every key recorded for `name` (already in `[host]:port` form) across `files`. */
export function keysFor(files: string[], name: string): KnownKey[] {
  const out: KnownKey[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const fields = lines[i]!.trim().split(/\s+/);
      if (fields.length < 3 || fields[0]!.startsWith("#")) continue;
      let revoked = false;
      if (fields[0]!.startsWith("@")) {
        const marker = fields.shift()!;
        if (marker === "@revoked") revoked = true;
        else continue; // @cert-authority and unknown markers: certificates are not used here.
        if (fields.length < 3) continue;
      }
      const [hosts, type, b64] = fields as [string, string, string];
      if (!hostMatches(hosts, name)) continue;
      const key = Buffer.from(b64, "base64");
      if (key.length === 0) continue;
      out.push({ file, line: i + 1, type, key, revoked });
    }
  }
  return out;
}

/** Judges the key a server presented against what the files know of that host. */
export function checkHostKey(files: string[], host: string, port: number, blob: Buffer): HostKeyVerdict {
  const entries = keysFor(files, knownHostsName(host, port));
  const revoked = entries.find((e) => e.revoked && e.key.equals(blob));
  if (revoked) return { status: "mismatch", entry: revoked, revoked: true, knownTypes: [] };
  const trusted = entries.filter((e) => !e.revoked);
  const same = trusted.find((e) => e.key.equals(blob));
  if (same) return { status: "known", entry: same };
  if (trusted.length === 0) return { status: "unknown" };
  const type = keyTypeOf(blob);
  return {
    status: "mismatch",
    entry: trusted.find((e) => e.type === type) ?? null,
    revoked: false,
    knownTypes: [...new Set(trusted.map((e) => e.type))],
  };
}

/** Key types known for a host, to ask the server for those first (as ssh does). */
export function knownTypes(files: string[], host: string, port: number): string[] {
  return [
    ...new Set(
      keysFor(files, knownHostsName(host, port))
        .filter((e) => !e.revoked)
        .map((e) => e.type),
    ),
  ];
}

/** `|1|salt|hash` for a name, as `ssh-keygen -H` writes it. */
export function hashName(name: string, salt: Buffer = randomBytes(20)): string {
  return `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(name).digest("base64")}`;
}

/** Appends a host's key to `file` (created 0600 in a 0700 dir when missing). */
export function addKnownHost(file: string, host: string, port: number, blob: Buffer, hash: boolean): void {
  const dir = dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = knownHostsName(host, port);
  const line = `${hash ? hashName(name) : name} ${keyTypeOf(blob)} ${blob.toString("base64")}\n`;
  let prefix = "";
  if (existsSync(file) && statSync(file).size > 0) {
    const text = readFileSync(file, "utf8");
    if (!text.endsWith("\n")) prefix = "\n";
  }
  appendFileSync(file, prefix + line, { mode: 0o600 });
}
