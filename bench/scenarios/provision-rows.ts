/**
 * The provision scenario's table rows beyond its rates: time against the floor (same server, same
 * repetition), the --baseline checkout's controller CPU beside ours, and whether the CPU per
 * volume stays flat from the smallest size to the largest.
 */
import type { FloorSample } from '../binding/provision-floor.js';
import type { ProvisionSample } from '../binding/provision-run.js';
import { checkAtMost, type ResultRow } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';

export const FLOOR_TARGET = 1.5;
export const FLAT_TARGET = 1.2;
type Way = 'provision' | 'delete';
const WAYS: Way[] = ['provision', 'delete'];

export interface ProvisionSizeSamples {
  n: number;
  ours: ProvisionSample[];
  floor: FloorSample[];
  baseline: ProvisionSample[];
}

const seconds = (values: number[]): string => `${((median(values) ?? 0) / 1000).toFixed(2)} s`;
const msOf = (way: Way) => (s: ProvisionSample): number => (way === 'provision' ? s.provisionMs : s.deleteMs);
const cpuOf = (way: Way) => (s: ProvisionSample): number | null => s.traffic[way].controllerCpuMsPerVolume;

function medianCpu(samples: ProvisionSample[], way: Way): number | null {
  const values = samples.map(cpuOf(way));
  return values.includes(null) ? null : median(values as number[]);
}

/** Time / floor each way (ratios per repetition, then the median), and what the floor asked of the server. */
export function floorRows(scenario: string, storage: string, s: ProvisionSizeSamples): ResultRow[] {
  if (s.floor.length === 0) return [];
  const size = formatNumber(s.n);
  const rows: ResultRow[] = WAYS.map((way) => {
    const ours = s.ours.map(msOf(way));
    const floor = s.floor.map((f) => (way === 'provision' ? f.provisionMs : f.deleteMs));
    const r = medianOfRatios(ours, floor);
    return {
      scenario,
      label: `${way} time / floor, ${storage}, ${size}`,
      status: 'ok',
      measured: `${seconds(ours)} / ${seconds(floor)} = ${formatRatio(r)}`,
      target: checkAtMost(r, FLOOR_TARGET, `≤ ${FLOOR_TARGET}× floor`),
    };
  });
  const requests = WAYS.map((way) => {
    const m = median(s.floor.map((f) => f.requestsPerVolume[way] ?? Number.NaN));
    return `${way} ${m === null || Number.isNaN(m) ? 'n/a' : m.toFixed(2)}`;
  });
  rows.push({ scenario, label: `floor requests per volume (bench's own included), ${storage}, ${size}`, status: 'ok', measured: requests.join(', ') });
  const cpu = WAYS.map((way) => {
    const of = (pick: (f: FloorSample) => number | null): string => {
      const values = s.floor.map(pick);
      return values.includes(null) ? 'n/a' : formatNumber(median(values as number[]), 2);
    };
    return `${way} ${of((f) => f.cpuMsPerVolume[way].client)} ms client, ${of((f) => f.cpuMsPerVolume[way].server)} ms API server`;
  });
  rows.push({ scenario, label: `floor CPU per volume, ${storage}, ${size}`, status: 'ok', measured: cpu.join('; ') });
  return rows;
}

/** Controller CPU per volume, this checkout against the --baseline one (same server build, same repetition). */
export function baselineRows(scenario: string, storage: string, s: ProvisionSizeSamples): ResultRow[] {
  if (s.baseline.length === 0) return [];
  const parts = WAYS.map((way) => {
    const ours = medianCpu(s.ours, way);
    const base = medianCpu(s.baseline, way);
    const r = ours !== null && base !== null && base > 0 ? ours / base : null;
    return `${way} ${formatNumber(ours, 2)} / ${formatNumber(base, 2)} ms = ${formatRatio(r)}`;
  });
  return [{ scenario, label: `controller CPU per volume, this / baseline, ${storage}, ${formatNumber(s.n)}`, status: 'ok', measured: parts.join('; ') }];
}

/** CPU per volume at the largest size over the smallest: "Flat" is ≤ 1.2× each way. */
export function flatRows(scenario: string, storage: string, sizes: ProvisionSizeSamples[]): ResultRow[] {
  if (sizes.length < 2) return [];
  const small = sizes.reduce((a, b) => (b.n < a.n ? b : a));
  const large = sizes.reduce((a, b) => (b.n > a.n ? b : a));
  return WAYS.map((way) => {
    const a = medianCpu(small.ours, way);
    const b = medianCpu(large.ours, way);
    const r = a !== null && b !== null && a > 0 ? b / a : null;
    return {
      scenario,
      label: `controller CPU per ${way === 'provision' ? 'provisioned' : 'deleted'} volume, ${formatNumber(large.n)} / ${formatNumber(small.n)}, ${storage}`,
      status: 'ok',
      measured: `${formatNumber(b, 2)} ms / ${formatNumber(a, 2)} ms = ${formatRatio(r)}`,
      target: checkAtMost(r, FLAT_TARGET, `≤ ${FLAT_TARGET}×`),
    };
  });
}
