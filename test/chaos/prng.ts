/**
 * A seeded PRNG (mulberry32) and the fuzzed values the chaos suite sends. The seed comes from
 * PTYHUB_CHAOS_SEED (else a fixed default) and every failure prints it: rerun with that seed to
 * replay the same calls.
 */

export const DEFAULT_SEED = 0x5eed_0010;

export function chaosSeed(): number {
  const env = process.env.PTYHUB_CHAOS_SEED;
  return env && /^\d+$/.test(env) ? Number(env) : DEFAULT_SEED;
}

export class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** Characters that break naive code: NUL and controls, escapes, quotes, RTL, emoji, combining marks. */
const NASTY = [
  "\0",
  "\x01",
  "\x07",
  "\b",
  "\t",
  "\n",
  "\r",
  "\x1b",
  "\x1b[2J",
  "\x7f",
  "\u2028",
  "\u202e",
  "\ufeff",
  "\ud83d",
  "🙂",
  "é",
  "e\u0301",
  "中文",
  '"',
  "'",
  "\\",
  "$(",
  "`",
  "%s",
  "{}",
  "null",
];

export function fuzzString(rng: Prng, maxLen: number): string {
  // Mostly lengths the schemas accept (short ones, and the limit itself), sometimes just past it.
  const len = rng.chance(0.85)
    ? rng.pick([0, 1, 8, 64, rng.int(0, Math.min(maxLen, 2000)), maxLen - 1, maxLen])
    : rng.pick([maxLen + 1, rng.int(maxLen, maxLen * 2)]);
  let out = "";
  while (out.length < len) out += rng.chance(0.3) ? rng.pick(NASTY) : String.fromCharCode(rng.int(0x20, 0x7e));
  return out.slice(0, Math.max(0, len));
}

/** Usually the right kind of value for the field (`right`), sometimes one of a random wrong type. */
/**
 * With six or so fields per call, this share of well-typed values makes about a third of the calls
 * valid through and through (they reach sessions), the rest fail validation somewhere.
 */
const RIGHT_TYPE_SHARE = 0.85;

export function fuzzValue(rng: Prng, right: () => unknown): unknown {
  if (rng.chance(RIGHT_TYPE_SHARE)) return right();
  switch (rng.int(0, 5)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([-1, 0, 1.5, 2 ** 31, -(2 ** 53), 1e308, 600_001]);
    case 3:
      return fuzzString(rng, 200);
    case 4:
      return [fuzzString(rng, 20), 1, null];
    default:
      return { nested: fuzzString(rng, 20) };
  }
}

/** Patterns meant to hurt: catastrophic backtracking, unsupported syntax, broken syntax, huge. */
export const HOSTILE_PATTERNS = [
  "(a+)+$",
  "(a|aa)+$",
  "(.*a){20}",
  "(?=a)b",
  "(?<!x)y",
  "(a)\\1",
  "(",
  "[",
  "\\",
  "a{1001}",
  "[^]",
  "\\p{Nope}",
  "x*".repeat(400),
  "(x+x+)+y",
  "",
  "\0",
];
