/** Small statistics for repeated measurements: medians and nearest-rank percentiles. */

export function median(values: readonly number[]): number | null {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100); null for no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Ratio a / b, null when either is missing or b is zero. */
export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  return a / b;
}

/** Per-repetition ratios a[i] / b[i] (same-run pairs), then their median. */
export function medianOfRatios(a: readonly number[], b: readonly number[]): number | null {
  const pairs: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (b[i] > 0) pairs.push(a[i] / b[i]);
  }
  return median(pairs);
}

export function formatNumber(value: number | null, digits = 0): string {
  if (value === null || !Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatRatio(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(2)}×`;
}
