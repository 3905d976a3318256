/**
 * "Did you mean …?" for a mistyped word (a verb, a config key): the closest known word within a
 * small edit distance, or none when nothing is close enough to be a plausible typo.
 */

/** At most this many single-character edits apart: "colz" → "cols", "lss" → "ls", not "rows" → "cols"+. */
export const SUGGESTION_MAX_DISTANCE = 2;

/** Levenshtein distance: the fewest insertions, deletions and substitutions turning `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known word closest to `word` (the first of equals), if within SUGGESTION_MAX_DISTANCE. */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= SUGGESTION_MAX_DISTANCE && (best === undefined || distance < best.distance)) {
      best = { word: candidate, distance };
    }
  }
  return best?.word;
}
