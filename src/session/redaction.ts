/**
 * Secrets typed with term_secret, and their masking. Every result a session produces passes
 * through `redactFields` on its way out of the host, so no field (output, `matched`, screen, cwd,
 * …) and no path built on those results (text headers, resources, the daemon's replies) can carry
 * a secret: masking output alone let `matched` leak one (issue #10).
 *
 * One Secrets serves all of a host's sessions (manager.ts): a secret typed in one session is masked
 * in every other's output and recording too (`cat` of a file it was saved to, elsewhere).
 * Protocol values (`status: "done"`, `via: "shell"`, the session's name) are never masked: a
 * secret that happens to occur inside one would break the client's reading of the result.
 */

export const REDACTED = "[secret]";

/**
 * Shorter secrets are typed but not masked: masking a one- or three-character string everywhere
 * it occurs would garble every output (and says little about the secret that a reader could not
 * guess anyway). docs/safety.md, Secrets, says so.
 */
export const MIN_MASKED_SECRET_CHARS = 4;

/**
 * Fields that hold the caller's own identifiers or protocol values, never program output: left as
 * they are. (Program output is in output, matched, screen, cwd, target, lines, text, hint, …)
 */
const PROTOCOL_FIELDS: ReadonlySet<string> = new Set([
  "session",
  "status",
  "via",
  "state",
  "kind",
  "created_at",
  "truncated",
  "integration",
  "family",
  "mode",
  "encoding",
]);

export class Secrets {
  private readonly known = new Set<string>();

  /** Remembers a secret so it is masked in everything produced afterwards; false when too short to mask. */
  add(secret: string): boolean {
    if (secret.length < MIN_MASKED_SECRET_CHARS) return false;
    this.known.add(secret);
    return true;
  }

  get size(): number {
    return this.known.size;
  }

  redact(text: string): string {
    if (this.known.size === 0) return text;
    let out = text;
    for (const s of this.known) out = out.split(s).join(REDACTED);
    return out;
  }

  /** Masks secrets in every string field of `result` but protocol ones, nested ones included; returns it. */
  redactFields<T extends object>(result: T): T {
    if (this.known.size > 0) this.maskIn(result);
    return result;
  }

  private maskIn(value: object): void {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === "string") {
        if (!PROTOCOL_FIELDS.has(key)) Reflect.set(value, key, this.redact(field));
      } else if (field !== null && typeof field === "object") {
        this.maskIn(field);
      }
    }
  }
}
