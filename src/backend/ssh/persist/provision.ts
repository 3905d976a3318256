/**
 * Getting ptyhub onto the remote host, without root: probe its platform over exec (`uname -sm`),
 * pick a binary this ptyhub can supply for it (source-binary.ts: its own executable, a release in
 * the local cache, or, run from source, a `dist/` build or one compiled now), upload it over SFTP
 * to a per-user, versioned path (`${XDG_CACHE_HOME:-~/.cache}/ptyhub/bin/<version>-<sha256
 * prefix>/ptyhub`, new directories 0700, the file 0700), and check its sha256 over exec before
 * every use. Where nothing matches, a ptyhub the user installed there (on PATH) is used; failing
 * that, the error's hint names only ways that work today (nothing is published yet).
 */
import { statSync } from "node:fs";
import type { Client, ClientChannel } from "ssh2";
import { AppError } from "../../../api/errors.ts";
import { logger } from "../../../log.ts";
import { VERSION } from "../../../version.ts";
import { quotePosix } from "../../../terminal/shell-integration.ts";
import { LIBC_PROBE, platformOf, releaseCachePath, type Libc } from "./platform.ts";
import { runningFromSource, suppliedBinary } from "./source-binary.ts";

const log = logger("remote-provision");

/** Hex digits of the binary's sha256 in its directory name: distinct builds of one version never share a path. */
const SHA_PREFIX_CHARS = 16;
/** Bound on each small exec exchange (probe, checksum, mkdir, rename); a checksum of ~100 MB takes well under it. */
const EXEC_TIMEOUT_MS = 30_000;
/** Bound on the upload of the binary (~100 MB even over a slow link). */
const UPLOAD_TIMEOUT_MS = 10 * 60_000;

/** A failure to get ptyhub running there: not retryable unless said. */
function spawnFailed(message: string, hint: string, retryable = false): AppError {
  return new AppError("SPAWN_FAILED", message, hint, retryable);
}

const shaCache = new Map<string, { key: string; sha: string }>();

/** The file's sha256 (hex), remembered while the file is unchanged. */
export async function sha256File(path: string): Promise<string> {
  const st = statSync(path);
  const key = `${st.size}:${st.mtimeMs}`;
  const known = shaCache.get(path);
  if (known && known.key === key) return known.sha;
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  const sha = hasher.digest("hex");
  shaCache.set(path, { key, sha });
  return sha;
}

/** Runs a command over exec; resolves with its stdout, stderr and exit code (bounded). */
export interface ExecText {
  out: string;
  err: string;
  code: number | null;
}

export function execText(client: Client, command: string, timeoutMs = EXEC_TIMEOUT_MS): Promise<ExecText> {
  return new Promise((resolve, reject) => {
    client.exec(command, (err, ch: ClientChannel) => {
      if (err) return reject(err);
      let out = "";
      let errText = "";
      let code: number | null = null;
      const timer = setTimeout(() => {
        ch.close();
        const what = `the remote host did not finish \`${command.slice(0, 60)}\` within ${timeoutMs} ms`;
        reject(new AppError("SSH_CONNECT_FAILED", what, "Check the host's load and retry.", true));
      }, timeoutMs);
      ch.on("data", (d: Buffer) => (out += d.toString("utf8")));
      ch.stderr.on("data", (d: Buffer) => (errText += d.toString("utf8")));
      ch.on("exit", (c: number | null) => (code = typeof c === "number" ? c : null));
      ch.on("close", () => {
        clearTimeout(timer);
        resolve({ out, err: errText, code });
      });
    });
  });
}

const PROBE = `uname -sm; printf '%s\\n' "\${XDG_CACHE_HOME:-$HOME/.cache}"; ${LIBC_PROBE}; command -v ptyhub || echo`;

interface Probe {
  uname: string;
  cacheDir: string;
  libc: Libc;
  installed: string | null;
}

async function probe(client: Client): Promise<Probe> {
  const r = await execText(client, PROBE);
  const [uname = "", cacheDir = "", libc = "", installed = ""] = r.out.split("\n").map((l) => l.trim());
  if (!uname || !cacheDir.startsWith("/")) {
    throw spawnFailed(
      `the remote host did not answer the platform probe (uname -sm): ${(r.err || r.out).trim().slice(0, 200)}`,
      "remote_persist needs a POSIX host with uname and a home directory.",
    );
  }
  return {
    uname,
    cacheDir,
    libc: libc === "musl" ? "musl" : "gnu",
    installed: installed.startsWith("/") ? installed : null,
  };
}

/** The remote file's sha256, or null when it is missing (sha256sum on Linux, shasum on macOS). */
async function remoteSha(client: Client, path: string): Promise<string | null> {
  const q = quotePosix(path);
  const sum = `if command -v sha256sum >/dev/null; then sha256sum -- ${q}; else shasum -a 256 -- ${q}; fi`;
  const r = await execText(client, `if [ -f ${q} ]; then ${sum}; fi`);
  const m = /^([0-9a-f]{64})\s/.exec(r.out);
  return m ? m[1]! : null;
}

function upload(client: Client, local: string, remote: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const slow = `uploading ptyhub to the remote host took over ${UPLOAD_TIMEOUT_MS / 1000} s`;
    const timer = setTimeout(
      () => reject(new AppError("SSH_CONNECT_FAILED", slow, "Retry on a faster link, or install ptyhub there.", true)),
      UPLOAD_TIMEOUT_MS,
    );
    client.sftp((err, sftp) => {
      if (err) {
        clearTimeout(timer);
        const why = `the remote host offers no SFTP to upload ptyhub: ${err.message}`;
        const hint = `Put ptyhub ${VERSION} on the remote host's PATH yourself (copy ${local}), then retry.`;
        return reject(spawnFailed(why, hint));
      }
      sftp.fastPut(local, remote, { mode: 0o700 }, (e) => {
        clearTimeout(timer);
        sftp.end();
        const hint = "Check the remote disk space and permissions of its cache directory.";
        if (e) reject(spawnFailed(`uploading ptyhub to ${remote} failed: ${e.message}`, hint));
        else resolve();
      });
    });
  });
}

/** Nothing to put on the remote host: what is missing, and the ways that work today to supply it. */
function noBinary(uname: string, libc: Libc, platform: string | null): AppError {
  const instead = "or open the session without remote_persist.";
  if (!platform) {
    return spawnFailed(
      `ptyhub is not built for the remote host's platform (uname -sm: ${uname})`,
      `Run ptyhub from source there, as \`ptyhub\` on its PATH (bun src/cli.ts in a checkout), then retry; ${instead}`,
    );
  }
  const made = runningFromSource() ? " (compiling it from source failed: the log says why)" : "";
  return spawnFailed(
    `this ptyhub has no ${VERSION} binary for the remote host's platform (${uname}, ${libc} → ${platform})${made}`,
    `In a checkout of ptyhub, \`bun run build --target bun-${platform}\` builds one; put it at ` +
      `${releaseCachePath(platform)}, or as \`ptyhub\` on the remote host's PATH, then retry; ${instead}`,
  );
}

export interface RemoteBinaryOptions {
  /** Upload the binary when it is missing (term_list only looks; it never uploads). */
  upload: boolean;
}

/**
 * The path of a verified ptyhub on the remote host, uploading it when needed and allowed; null
 * when it is absent and `upload` is false.
 */
export async function remoteBinary(client: Client, opts: RemoteBinaryOptions): Promise<string | null> {
  const p = await probe(client);
  const platform = platformOf(p.uname, p.libc);
  const local = platform ? await suppliedBinary(platform, { build: opts.upload }) : null;
  if (!local) {
    if (p.installed) {
      log.info(`no binary of ours for '${p.uname}': using the remote host's own ${p.installed}`);
      return p.installed;
    }
    throw noBinary(p.uname.trim(), p.libc, platform);
  }
  const sha = await sha256File(local);
  const dir = `${p.cacheDir}/ptyhub/bin/${VERSION}-${sha.slice(0, SHA_PREFIX_CHARS)}`;
  const path = `${dir}/ptyhub`;
  const present = await remoteSha(client, path);
  if (present === sha) return path;
  if (!opts.upload) return null;
  if (present) log.warn(`${path} on the remote host does not match its checksum: replacing it`);
  log.info(`uploading ${local} to ${path}`);
  // umask 077: every directory this creates is 0700; an existing one of ours is made so too.
  const mk = await execText(client, `umask 077 && mkdir -p -- ${quotePosix(dir)} && chmod 700 -- ${quotePosix(dir)}`);
  if (mk.code !== 0) {
    throw spawnFailed(`cannot create ${dir} on the remote host: ${mk.err.trim()}`, "Check its permissions.");
  }
  const tmp = `${path}.upload-${process.pid}-${Date.now()}`;
  await upload(client, local, tmp);
  // Verified before it is put in place, and again by the caller's next use: a torn upload never runs.
  const got = await remoteSha(client, tmp);
  if (got !== sha) {
    await execText(client, `rm -f -- ${quotePosix(tmp)}`);
    const mismatch = `the uploaded ptyhub's checksum does not match (${got ?? "missing"} ≠ ${sha})`;
    throw spawnFailed(mismatch, "Retry; if it persists, check the remote disk.", true);
  }
  const [qTmp, qPath] = [quotePosix(tmp), quotePosix(path)];
  const mv = await execText(client, `chmod 700 -- ${qTmp} && mv -f -- ${qTmp} ${qPath}`);
  if (mv.code !== 0) throw spawnFailed(`cannot install ptyhub at ${path}: ${mv.err.trim()}`, "Check its directory.");
  return path;
}
