/** Order statistics for benchmark samples. */

/** Value at quantile q (0–1) of the samples, by linear interpolation between closest ranks. */
export function quantile(samples: readonly number[], q: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function median(samples: readonly number[]): number | null {
  return quantile(samples, 0.5);
}

export function p95(samples: readonly number[]): number | null {
  return quantile(samples, 0.95);
}

export function max(samples: readonly number[]): number | null {
  return samples.length === 0 ? null : Math.max(...samples);
}

/** A number with precision that suits its size: 0.42, 4.2, 42, 420. */
export function fmt(n: number | null | undefined, unit = ""): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—";
  const abs = Math.abs(n);
  const s = abs >= 100 ? n.toFixed(0) : abs >= 10 ? n.toFixed(1) : n.toFixed(2);
  return unit ? `${s} ${unit}` : s;
}

/** "3.4×" for how many times larger `other` is than `base`. */
export function ratio(other: number | null | undefined, base: number | null | undefined): string {
  if (other === null || other === undefined || base === null || base === undefined || base <= 0) return "—";
  const r = other / base;
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(1)}×`;
}

/** Rotates `items` by `i`, so that A/B order alternates between iterations. */
export function rotate<T>(items: readonly T[], i: number): T[] {
  if (items.length === 0) return [];
  const k = i % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
