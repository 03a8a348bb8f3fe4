/**
 * The local-path side by side's table rows, from the runs of each side: medians over the
 * repetitions for each side's figures, and the ratios of ours to local-path's taken within one
 * repetition (same machine state) and then their median. Targets (issue 28): provisioning
 * throughput ≥ 10× local-path's at ≤ 0.5× its CPU per volume, and nothing left behind.
 */
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';
import { checkAtLeast, checkAtMost, type ResultRow } from '../scenario.js';
import { SIDES, type Side } from './objects.js';
import type { SideResult } from './run-side.js';

export const SCENARIO = 'local-path';

const nums = (values: Array<number | null>): number[] => values.filter((v): v is number => v !== null && Number.isFinite(v));
const med = (runs: SideResult[], pick: (r: SideResult) => number | null): number | null => median(nums(runs.map(pick)));
const mb = (bytes: number | null): string => (bytes === null ? 'n/a' : `${formatNumber(bytes / 2 ** 20, 0)} MB`);

export function sideRow(n: number, side: Side, runs: SideResult[]): ResultRow {
  const helper = side === 'local-path' ? ` + helper pods ${formatNumber(med(runs, (r) => (r.helperCpuMs === null ? null : r.helperCpuMs / n)), 1)}` : '';
  const rssPerVolume = med(runs, (r) => (r.rssPeakBytes === null || r.rssStartBytes === null ? null : (r.rssPeakBytes - r.rssStartBytes) / n));
  const measured = [
    `${formatNumber(med(runs, (r) => r.boundPerSecond), 2)} claims/s to Bound`,
    `create→pod Running p50 ${formatNumber(med(runs, (r) => r.runningP50Ms))} ms, p99 ${formatNumber(med(runs, (r) => r.runningP99Ms))} ms`,
    `CPU/volume ${formatNumber(med(runs, (r) => r.cpuPerVolumeMs), 1)} ms (provisioner ${formatNumber(med(runs, (r) => (r.provisionerCpuMs === null ? null : r.provisionerCpuMs / n)), 1)}${helper})`,
    `kubelet+containerd ${formatNumber(med(runs, (r) => (r.runtimeCpuMs === null ? null : r.runtimeCpuMs / n)), 1)} ms/volume`,
    `RSS peak ${mb(med(runs, (r) => r.rssPeakBytes))} (+${formatNumber(rssPerVolume === null ? null : rssPerVolume / 1024, 1)} KiB/volume)`,
    `delete ${formatNumber(med(runs, (r) => r.deletePerSecond), 2)} claims/s`,
    `left on disk ${Math.max(0, ...runs.map((r) => r.leftoverCount))}`,
  ].join('; ');
  const waves = Math.max(...runs.map((r) => r.waves));
  return { scenario: SCENARIO, label: `${n} claims + pods (${waves} wave${waves === 1 ? '' : 's'}), ${side}`, status: 'ok', measured };
}

export function ratioRows(n: number, bySide: Record<Side, SideResult[]>): ResultRow[] {
  const lp = bySide['local-path'];
  const rows: ResultRow[] = [];
  for (const side of SIDES.filter((s) => s !== 'local-path')) {
    const ours = bySide[side];
    const throughput = medianOfRatios(ours.map((r) => r.boundPerSecond), lp.map((r) => r.boundPerSecond));
    const pairs = ours.map((r, i) => [r.cpuPerVolumeMs, lp[i]?.cpuPerVolumeMs] as const).filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null && p[1] !== undefined);
    const cpu = medianOfRatios(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
    const del = medianOfRatios(ours.map((r) => r.deletePerSecond), lp.map((r) => r.deletePerSecond));
    rows.push({
      scenario: SCENARIO,
      label: `${side} / local-path, ${n} claims: claims/s to Bound`,
      status: 'ok',
      measured: `${formatRatio(throughput)} (delete claims/s ${formatRatio(del)})`,
      target: checkAtLeast(throughput, 10, '≥ 10×'),
    });
    rows.push({ scenario: SCENARIO, label: `${side} / local-path, ${n} claims: CPU per volume`, status: 'ok', measured: formatRatio(cpu), target: checkAtMost(cpu, 0.5, '≤ 0.5×') });
    const left = Math.max(0, ...ours.map((r) => r.leftoverCount));
    const theirs = Math.max(0, ...lp.map((r) => r.leftoverCount));
    rows.push({
      scenario: SCENARIO,
      label: `${side}, ${n} claims: left on disk after deletes`,
      status: 'ok',
      measured: `${left} (local-path: ${theirs})`,
      target: checkAtMost(left, 0, '0 left'),
    });
  }
  return rows;
}
