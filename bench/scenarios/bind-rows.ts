/** Table rows of the bind scenario, from the samples of one (storage, size). */
import type { BindSample } from '../binding/bind-run.js';
import { FLOOR_WRITES_PER_PAIR, type FloorSample } from '../binding/floor.js';
import { checkAtLeast, checkAtMost, skippedRow, type ResultRow } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios, percentile } from '../stats.js';

/**
 * Writes per bound claim: a perfect binder makes 4 (two binds, two statuses), and the claim's
 * `Unused` condition (KEP-5541) one more, as kube-controller-manager 1.37's pvc-protection
 * controller makes it (KCM measured 5.00 writes in `real-bind`); the 0.2 is slack for retries.
 */
const WRITES_TARGET = 5.2;

export interface SizeSamples {
  storage: string;
  n: number;
  floors: FloorSample[];
  binds: BindSample[];
  /** The controller's peak RSS on an empty server, one per repetition (empty-controller.ts); none on a given cluster. */
  emptyRssBytes: Array<number | null>;
  /** The same measurements on the --baseline checkout (its server, its controller), same repetitions. */
  baseline?: { floorMs: number[]; binds: BindSample[] };
}

/** Targets on pairs/s, the floor ratio and RSS apply at 10,000 pairs (the size). */
const TARGET_SIZE = 10_000;
/** Issue 20: binding within 1.2× of its write floor at 10,000 pairs, on both storages. */
const FLOOR_RATIO_TARGET = 1.2;
const MB = 1024 * 1024;
const KB = 1024;
/** The memory target: at most this many bytes of controller RSS per cached PV or claim. */
const BYTES_PER_OBJECT_TARGET = 4 * KB;

/**
 * Controller RSS per cached PV and claim: (loaded peak − empty peak) / (2 × (N + 1)), the +1
 * being the canary pair, per repetition; the median, with the medians of both peaks.
 */
function rssPerObjectRow(scenario: string, where: string, s: SizeSamples, atTarget: boolean): ResultRow {
  const label = `controller RSS per cached object above empty, ${where}, ${formatNumber(s.n)}+${formatNumber(s.n)}`;
  const objects = 2 * (s.n + 1);
  const pairs = s.binds.flatMap((b, i) => {
    const empty = s.emptyRssBytes[i];
    return b.controllerPeakRssBytes !== null && empty !== null && empty !== undefined ? [{ peak: b.controllerPeakRssBytes, empty }] : [];
  });
  if (pairs.length === 0) return skippedRow(scenario, label, 'no empty-server RSS (a given cluster is never empty) or no /proc');
  const perObject = median(pairs.map((p) => (p.peak - p.empty) / objects))!;
  const empty = median(pairs.map((p) => p.empty))!;
  const peak = median(pairs.map((p) => p.peak))!;
  return row(
    scenario,
    label,
    `${formatNumber(perObject / KB, 2)} KB (peak ${formatNumber(peak / MB)} MB − empty ${formatNumber(empty / MB)} MB, over ${formatNumber(objects)} objects)`,
    atTarget ? checkAtMost(perObject, BYTES_PER_OBJECT_TARGET, '≤ 4 KB') : undefined,
  );
}

function row(scenario: string, label: string, measured: string, target?: ResultRow['target']): ResultRow {
  return { scenario, label, status: 'ok', measured, target };
}

const floorMsOf = (s: SizeSamples): number[] => s.floors.map((f) => f.ms);

export function floorOnlyRows(scenario: string, where: string, s: SizeSamples, why: string): ResultRow[] {
  const floorSeconds = (median(floorMsOf(s)) ?? 0) / 1000;
  return [
    row(
      scenario,
      `write floor, ${where}, ${formatNumber(s.n)} pairs`,
      `${floorSeconds.toFixed(2)} s = ${formatNumber(s.n / floorSeconds)} pairs/s (${FLOOR_WRITES_PER_PAIR} writes each)`,
    ),
    skippedRow(scenario, `bind ${formatNumber(s.n)} pairs, ${where}`, why),
  ];
}

/** Median of `values`, each divided by n; null unless every value is known. */
function medianPer(values: Array<number | null>, n: number): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === values.length ? median(known.map((v) => v / n)) : null;
}

const ms = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(2));

/** Median CPU ms per bound claim of the controller and of the API server (/proc user + system). */
function cpuPerClaim(s: SizeSamples): string {
  return `controller ${ms(medianPer(s.binds.map((b) => b.controllerCpuMs), s.n))} ms, API server ${ms(medianPer(s.binds.map((b) => b.serverCpuMs), s.n))} ms`;
}

/**
 * CPU per pair of every process in the bind window beside the floor's: on a machine whose cores
 * are all busy, the bind/floor time ratio follows the ratio of these sums.
 */
function cpuBesideFloor(s: SizeSamples): string {
  const bind = [medianPer(s.binds.map((b) => b.controllerCpuMs), s.n), medianPer(s.binds.map((b) => b.serverCpuMs), s.n), medianPer(s.binds.map((b) => b.clientCpuMs), s.n)];
  const floor = [medianPer(s.floors.map((f) => f.serverCpuMs), s.n), medianPer(s.floors.map((f) => f.clientCpuMs), s.n)];
  const sum = (xs: Array<number | null>): number | null => (xs.some((x) => x === null) ? null : xs.reduce((a, b) => a! + b!, 0));
  return `bind: controller ${ms(bind[0])} + server ${ms(bind[1])} + bench ${ms(bind[2])} = ${ms(sum(bind))} ms; floor: server ${ms(floor[0])} + bench ${ms(floor[1])} = ${ms(sum(floor))} ms`;
}

export function bindRows(scenario: string, where: string, s: SizeSamples): ResultRow[] {
  // The issue states these targets at 10,000 pairs; a larger run is held to its flatness rows.
  const atTarget = s.n === TARGET_SIZE;
  const pairsPerSecond = s.binds.map((b) => (s.n * 1000) / b.bindMs);
  const pps = median(pairsPerSecond);
  const latencies = s.binds.flatMap((b) => b.latenciesMs);
  const floorMs = floorMsOf(s);
  const ratio = medianOfRatios(
    s.binds.map((b) => b.bindMs),
    floorMs.slice(0, s.binds.length),
  );
  const writes = median(s.binds.map((b) => b.controllerWrites / s.n));
  const counted = s.binds.filter((b) => b.controllerRequests !== null && b.conflicts !== null);
  const requests = median(counted.map((b) => b.controllerRequests! / s.n));
  const conflicts = median(counted.map((b) => b.conflicts! / s.n));
  const rss = median(s.binds.map((b) => b.controllerPeakRssBytes).filter((v): v is number => v !== null));
  const serverRss = median(s.binds.map((b) => b.serverPeakRssBytes).filter((v): v is number => v !== null));
  const misbound = s.binds.filter((b) => b.distinctVolumes !== s.n).length;
  const size = formatNumber(s.n);
  const rows = [
    row(
      scenario,
      `bind ${size} pairs, ${where}`,
      `${formatNumber(pps)} pairs/s; create→Bound p50 ${formatNumber(percentile(latencies, 50))} ms, p99 ${formatNumber(percentile(latencies, 99))} ms`,
      atTarget ? checkAtLeast(pps, 500, '≥ 500 pairs/s') : undefined,
    ),
    floorMs.length > 0
      ? row(
          scenario,
          `bind time / write floor, ${where}, ${size}`,
          `${((median(s.binds.map((b) => b.bindMs)) ?? 0) / 1000).toFixed(2)} s / ${((median(floorMs) ?? 0) / 1000).toFixed(2)} s = ${formatRatio(ratio)}`,
          atTarget ? checkAtMost(ratio, FLOOR_RATIO_TARGET, `≤ ${FLOOR_RATIO_TARGET}× floor`) : undefined,
        )
      : skippedRow(scenario, `bind time / write floor, ${where}, ${size}`, 'floor not measured (--no-floor)'),
    row(scenario, `API writes per bound claim, ${where}, ${size}`, formatNumber(writes, 2), checkAtMost(writes, WRITES_TARGET, `≤ ${WRITES_TARGET}`)),
    counted.length > 0
      ? row(scenario, `API requests per bound claim, ${where}, ${size}`, formatNumber(requests, 2))
      : skippedRow(scenario, `API requests per bound claim, ${where}, ${size}`, 'the server exposes no request counters'),
    row(scenario, `409 conflicts per bound claim, ${where}, ${size}`, counted.length > 0 ? formatNumber(conflicts, 3) : 'n/a (no server counters)', checkAtMost(conflicts, 0.05, '≤ 0.05')),
    row(scenario, `CPU per bound claim, ${where}, ${size}`, cpuPerClaim(s)),
    ...(floorMs.length > 0 ? [row(scenario, `CPU per pair, bind vs floor, ${where}, ${size}`, cpuBesideFloor(s))] : []),
    row(
      scenario,
      `controller peak RSS, ${where}, ${size}+${size}`,
      rss === null ? 'n/a' : `${formatNumber(rss / MB)} MB`,
      atTarget ? checkAtMost(rss, 300 * MB, '< 300 MB', true) : undefined,
    ),
    row(scenario, `API server peak RSS, ${where}, ${size}+${size}`, serverRss === null ? 'n/a' : `${formatNumber(serverRss / MB)} MB`),
    rssPerObjectRow(scenario, where, s, atTarget),
  ];
  if (misbound > 0) {
    rows.push({ scenario, label: `binding correctness, ${where}, ${size}`, status: 'failed', measured: `${misbound} run(s) bound claims to fewer than ${size} distinct volumes` });
  }
  return rows;
}

/** This build's bind and floor times over the --baseline checkout's, per repetition (medians). */
export function baselineRows(scenario: string, where: string, s: SizeSamples): ResultRow[] {
  if (!s.baseline) return [];
  const size = formatNumber(s.n);
  const bindMs = s.binds.map((b) => b.bindMs);
  const theirBindMs = s.baseline.binds.map((b) => b.bindMs);
  const serverCpu = (binds: BindSample[]): number[] => binds.map((b) => b.serverCpuMs ?? 0);
  const controllerCpu = (binds: BindSample[]): number[] => binds.map((b) => b.controllerCpuMs ?? 0);
  const rows: ResultRow[] = [];
  if (s.floors.length > 0) {
    rows.push(row(scenario, `write floor, this build vs baseline, ${where}, ${size}`, `${formatRatio(medianOfRatios(floorMsOf(s), s.baseline.floorMs))} the baseline's time`));
  }
  if (bindMs.length > 0 && theirBindMs.length > 0) {
    const known = s.binds.flatMap((b, i) => {
      const theirs = s.baseline?.binds[i]?.controllerPeakRssBytes;
      return b.controllerPeakRssBytes !== null && theirs ? [b.controllerPeakRssBytes / theirs] : [];
    });
    rows.push(row(scenario, `controller peak RSS, this build vs baseline, ${where}, ${size}+${size}`, `${formatRatio(median(known))} the baseline's`));
    rows.push(
      row(scenario, `bind, this build vs baseline, ${where}, ${size}`, `${formatRatio(medianOfRatios(bindMs, theirBindMs))} the baseline's time (baseline ${formatNumber(median(theirBindMs.map((ms) => (s.n * 1000) / ms)))} pairs/s)`),
      row(scenario, `API server CPU while binding, this build vs baseline, ${where}, ${size}`, `${formatRatio(medianOfRatios(serverCpu(s.binds), serverCpu(s.baseline.binds)))} the baseline's`),
      row(scenario, `controller CPU while binding, this build vs baseline, ${where}, ${size}`, `${formatRatio(medianOfRatios(controllerCpu(s.binds), controllerCpu(s.baseline.binds)))} the baseline's`),
    );
  }
  return rows;
}

/**
 * Issue 20's flatness targets: CPU per bound claim at 10,000 pairs ≤ 1.2× that at 1,000, and at
 * 100,000 ≤ 1.3× that at 10,000 — the controller and the API server each on their own, same
 * storage, same run. A row for each size that has its tenth in the run.
 */
export function flatnessRows(scenario: string, sizes: SizeSamples[]): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const big of sizes) {
    const small = sizes.find((s) => s.storage === big.storage && s.n * 10 === big.n);
    if (!small || big.n < TARGET_SIZE) continue;
    const limit = big.n > TARGET_SIZE ? 1.3 : 1.2;
    for (const side of ['controller', 'server'] as const) {
      const of = (s: SizeSamples): number | null => medianPer(s.binds.map((b) => (side === 'controller' ? b.controllerCpuMs : b.serverCpuMs)), s.n);
      const [at, below] = [of(big), of(small)];
      const ratio = at === null || below === null || below === 0 ? null : at / below;
      rows.push(
        row(
          scenario,
          `${side === 'controller' ? 'controller' : 'API server'} CPU per claim, ${formatNumber(big.n)} vs ${formatNumber(small.n)}, ${big.storage}`,
          `${ms(at)} ms / ${ms(below)} ms = ${formatRatio(ratio)}`,
          checkAtMost(ratio, limit, `≤ ${limit}×`),
        ),
      );
    }
  }
  return rows;
}
