/**
 * Bounded quoting of caller input in messages. Errors and logs name what was wrong, but never
 * echo input unbounded: a 1 MiB argument name must not come back as a 1 MB error (issue #10).
 */

/** Enough to recognize a value (a path, a key, a pattern) in a message; the rest is counted. */
export const MAX_QUOTED_CHARS = 120;

/** `text` cut to `max` characters, saying how many were left out. */
export function clip(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** `text` as a JSON string literal (control characters escaped), cut to `max` characters first. */
export function quote(text: string, opts: { plain?: boolean; max?: number } = {}): string {
  const max = opts.max ?? MAX_QUOTED_CHARS;
  if (opts.plain) return clip(text, max);
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}… (${text.length - max} more characters)`;
}
