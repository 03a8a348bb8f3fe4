/**
 * What the `--real-cluster` scenarios share: the two controllers compared (ours and
 * kube-controller-manager), the order a repetition runs them in, and the formatting of their
 * figures side by side, always as ours / kube-controller-manager.
 */
import type { AuditWindowCounts } from '../../tools/cluster/audit.js';
import { controlPlaneUnavailable } from '../../tools/cluster/binaries.js';
import { embeddedServerUnavailable, missingCommand } from '../proc/servers.js';
import { skippedRow, type BenchOptions, type ResultRow } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';

export type Side = 'ours' | 'kcm';

export const SIDE_NAMES: Record<Side, string> = { ours: 'pv-controller', kcm: 'kube-controller-manager' };

const MB = 1024 * 1024;

/** Repetition `rep` runs the items rotated by `rep`, so a drifting machine favours none of them. */
export function rotated<T>(items: readonly T[], rep: number): T[] {
  return items.map((_, i) => items[(i + rep) % items.length]);
}

/** Why the side-by-side scenarios cannot run here, or undefined. */
export async function sideBySideUnavailable(opts: BenchOptions, needsController: boolean): Promise<string | undefined> {
  return controlPlaneUnavailable() ?? (await embeddedServerUnavailable(opts)) ?? (needsController ? missingCommand('controller') : undefined);
}

export function skippedAll(scenario: string, label: string, why: string): { rows: ResultRow[]; details: Record<string, unknown> } {
  return { rows: [skippedRow(scenario, label, why)], details: { skipped: why } };
}

export function row(scenario: string, label: string, measured: string): ResultRow {
  return { scenario, label, status: 'ok', measured };
}

/** The median of `values` divided by `per`, formatted ('n/a' when any value is unknown). */
export function medianPer(values: ReadonlyArray<number | null>, per: number, digits = 2): string {
  if (values.length === 0 || values.some((v) => v === null)) return 'n/a';
  return formatNumber(median((values as number[]).map((v) => v / per)), digits);
}

/** Per-repetition ratio ours / KCM of a figure, its median formatted ("0.42×"). */
export function sideRatio(ours: ReadonlyArray<number | null>, kcm: ReadonlyArray<number | null>): string {
  const known = (v: ReadonlyArray<number | null>): number[] => (v.some((x) => x === null) ? [] : (v as number[]));
  return formatRatio(medianOfRatios(known(ours), known(kcm)));
}

export function megabytes(bytes: number | null): string {
  return bytes === null ? 'n/a' : `${formatNumber(bytes / MB)} MB`;
}

/** "pv-controller 150 MB, kube-controller-manager 60 MB (ours/KCM 2.50×)". */
export function peakRssText(ours: ReadonlyArray<number | null>, kcm: ReadonlyArray<number | null>): string {
  const med = (v: ReadonlyArray<number | null>): number | null => (v.some((x) => x === null) ? null : median(v as number[]));
  return `${SIDE_NAMES.ours} ${megabytes(med(ours))}, ${SIDE_NAMES.kcm} ${megabytes(med(kcm))} (ours/KCM ${sideRatio(ours, kcm)})`;
}

/**
 * "4.00 requests, 4.00 writes, 0.000 409s" per unit of work, medians over repetitions; requests
 * by component when more than one made them ("persistent-volume-binder 4.00 + …").
 */
export function trafficText(counts: readonly AuditWindowCounts[], per: number): string {
  const text = [
    `${medianPer(counts.map((c) => c.requests), per)} requests`,
    `${medianPer(counts.map((c) => c.writes), per)} writes`,
    `${medianPer(counts.map((c) => c.conflicts), per, 3)} 409s`,
  ].join(', ');
  const components = [...new Set(counts.flatMap((c) => Object.keys(c.byComponent)))].sort();
  // Components with next to nothing in the window (an informer's re-list) would only add "0.00".
  const parts = components
    .map((name) => `${name} ${medianPer(counts.map((c) => c.byComponent[name] ?? 0), per)}`)
    .filter((part) => !part.endsWith(' 0.00'));
  return parts.length < 2 ? text : `${text} (requests: ${parts.join(' + ')})`;
}

/**
 * Issue 20's target beside kube-controller-manager, from per-repetition times of the same work:
 * ours at least 10× KCM's rate; or, where the kube-apiserver's own floor (the same requests by a
 * bare loop, same run) is itself below 10× KCM's rate, ours within 1.2× of that floor. The
 * proviso keeps the target to what the server allows. Medians of per-repetition ratios.
 */
export function tenTimesKcmRow(scenario: string, label: string, times: { ours: number[]; kcm: number[]; floor: number[] }): ResultRow {
  const oursOverKcm = medianOfRatios(times.kcm, times.ours); // rate ratio = inverse time ratio
  const floorOverKcm = medianOfRatios(times.kcm, times.floor);
  const oursOverFloor = medianOfRatios(times.ours, times.floor);
  const measured =
    `ours ${formatRatio(oursOverKcm)} KCM's rate; the floor ${formatRatio(floorOverKcm)} KCM's rate; ` + `ours ${formatRatio(oursOverFloor)} the floor's time`;
  if (oursOverKcm === null || floorOverKcm === null || oursOverFloor === null) {
    return { scenario, label, status: 'ok', measured, target: { text: '≥ 10× KCM, or ≤ 1.2× floor', pass: null } };
  }
  if (oursOverKcm >= 10 || floorOverKcm >= 10) {
    return { scenario, label, status: 'ok', measured, target: { text: '≥ 10× KCM', pass: oursOverKcm >= 10 } };
  }
  return { scenario, label, status: 'ok', measured, target: { text: '≤ 1.2× floor (floor < 10× KCM)', pass: oursOverFloor <= 1.2 } };
}
