/** Reading a ControllerMetrics exposition in tests: samples by name and labels, and quantiles over histogram buckets. */
import assert from 'node:assert/strict';
import type { ControllerMetrics } from '../../src/metrics/prometheus.js';
import { parseExposition, type Sample } from '../../src/metrics/text-format.js';

export async function scrape(metrics: ControllerMetrics): Promise<Sample[]> {
  const { contentType, body } = await metrics.render();
  assert.match(contentType, /^text\/plain; version=0\.0\.4/);
  return parseExposition(body).samples;
}

/** The value of the one sample with this name and exactly these labels (undefined if absent). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && sameLabels(s.labels, labels));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} appears ${found.length} times`);
  return found[0]?.value;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

/** The `le` bounds of a histogram's series with these labels (besides `le`), in exposition order. */
export function bucketBounds(samples: Sample[], histogram: string, labels: Record<string, string>): string[] {
  return samples
    .filter((s) => s.name === `${histogram}_bucket` && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => s.labels.le ?? '');
}

/**
 * Prometheus' histogram_quantile over one series' cumulative buckets: linear interpolation inside
 * the bucket the rank falls in; NaN when there are no observations or only a +Inf bucket.
 */
export function histogramQuantile(q: number, samples: Sample[], histogram: string, labels: Record<string, string>): number {
  const buckets = samples
    .filter((s) => s.name === `${histogram}_bucket` && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => ({ le: Number(s.labels.le === '+Inf' ? Infinity : s.labels.le), count: s.value }))
    .sort((a, b) => a.le - b.le);
  const total = buckets.at(-1)?.count ?? 0;
  if (buckets.length < 2 || total === 0) return NaN;
  const rank = q * total;
  const i = buckets.findIndex((b) => b.count >= rank);
  const bucket = buckets[i];
  if (!bucket) return NaN;
  if (bucket.le === Infinity) return buckets[buckets.length - 2]?.le ?? NaN;
  const below = i > 0 ? buckets[i - 1] : undefined;
  const start = below?.le ?? 0;
  const inBucket = bucket.count - (below?.count ?? 0);
  return start + (bucket.le - start) * ((rank - (below?.count ?? 0)) / inBucket);
}
