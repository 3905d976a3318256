/**
 * The HTTP transport's bearer token: PTYHUB_HTTP_TOKEN when set, else a token generated once
 * (256 random bits) and kept in a 0600 file in the private state directory, so a restarted server
 * and the clients registered with it keep using the same one. Compared in constant time.
 */
import { closeSync, chmodSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { AppError } from "../api/errors.ts";
import { stateDir } from "../paths.ts";

/** 32 bytes = 256 bits of entropy: beyond guessing, whatever the request rate. */
const TOKEN_BYTES = 32;
/** Shortest token accepted from the environment or the file (base64url of 24 bytes = 192 bits). */
const MIN_TOKEN_CHARS = 32;
const TOKEN_FILE = "http-token";
/**
 * The variable that gives the token. It is the server's credential, so sessions never inherit it
 * (backend/local/launch.ts, host/daemon-host.ts): a session, sandboxed or not, is not a client.
 */
export const HTTP_TOKEN_ENV = "PTYHUB_HTTP_TOKEN";

export interface HttpToken {
  token: string;
  /** Where it came from: the environment, or the file (whose path `serve` prints). */
  source: "env" | "file";
  path: string | null;
  /** True when this run generated the file. */
  created: boolean;
}

export function tokenFilePath(): string {
  return join(stateDir(), TOKEN_FILE);
}

function tooShort(where: string): AppError {
  return new AppError(
    "INVALID_ARGUMENT",
    `the HTTP token in ${where} is shorter than ${MIN_TOKEN_CHARS} characters`,
    "Use a long random token (e.g. `openssl rand -base64 32`), or unset it to let ptyhub generate one.",
  );
}

/** The token to require: from PTYHUB_HTTP_TOKEN, else the token file (created on first use). */
export function resolveHttpToken(env: Record<string, string | undefined> = process.env): HttpToken {
  const fromEnv = env[HTTP_TOKEN_ENV]?.trim();
  if (fromEnv) {
    if (fromEnv.length < MIN_TOKEN_CHARS) throw tooShort(HTTP_TOKEN_ENV);
    return { token: fromEnv, source: "env", path: null, created: false };
  }
  const path = tokenFilePath();
  let created = false;
  try {
    // "wx": created only if absent, so two servers starting at once cannot overwrite each other.
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, randomBytes(TOKEN_BYTES).toString("base64url") + "\n");
    } finally {
      closeSync(fd);
    }
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  // A token file others can read is no secret: make it ours alone again.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const token = readFileSync(path, "utf8").trim();
  if (token.length < MIN_TOKEN_CHARS) throw tooShort(path);
  return { token, source: "file", path, created };
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Whether an Authorization header carries the token. Both sides are hashed first, so the
 * comparison takes the same time whatever the length or content of the guess.
 */
export function bearerMatches(header: string | null, token: string): boolean {
  const m = header === null ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const given = m?.[1] ?? "";
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}
