/**
 * Secrets typed with term_secret, and their masking. Every result a session produces passes
 * through `redactFields` on its way out of the host, so no field (output, `matched`, screen, cwd,
 * …) and no path built on those results (text headers, resources, the daemon's replies) can carry
 * a secret: masking output alone let `matched` leak one (issue #10).
 */

export const REDACTED = "[secret]";

/** Fields that hold the caller's own identifiers, never program output: left as they are. */
const IDENTITY_FIELDS: ReadonlySet<string> = new Set(["session"]);

export class Secrets {
  private readonly known = new Set<string>();

  /** Remembers a secret so it is masked in everything produced afterwards. */
  add(secret: string): void {
    if (secret.length > 0) this.known.add(secret);
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

  /** Masks secrets in every string field of `result`, nested objects and arrays included; returns it. */
  redactFields<T extends object>(result: T): T {
    if (this.known.size > 0) this.maskIn(result);
    return result;
  }

  private maskIn(value: object): void {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === "string") {
        if (!IDENTITY_FIELDS.has(key)) Reflect.set(value, key, this.redact(field));
      } else if (field !== null && typeof field === "object") {
        this.maskIn(field);
      }
    }
  }
}
