/**
 * `--real-cluster` bind: N pre-created PV/PVC pairs bound by our controller, then by
 * kube-controller-manager's binder (never both at once), beside the write floor of the same
 * kube-apiserver. Each of the three runs on its own fresh etcd + kube-apiserver, in an order that
 * rotates with the repetition; the set-up (N Available PVs), the canary, the claim creates and
 * the Bound watch are the bind scenario's own (binding/bind-run.ts). A controller's requests,
 * writes and 409s come from the plane's audit log, by User-Agent, within the timed window.
 */
import type { AuditWindowCounts } from '../../tools/cluster/audit.js';
import { launchOurController, runBind, type BindSample, type LaunchController } from '../binding/bind-run.js';
import { FLOOR_WRITES_PER_PAIR, measureFloorOn } from '../binding/floor.js';
import { newRunId } from '../fixtures.js';
import { controllerTraffic, OUR_MATCHING_FLAGS, startKubeControllerManager, withKubeApiServer } from '../proc/kube-control-plane.js';
import { note } from '../progress.js';
import { failedRow, heavyRepetitions, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, median, percentile } from '../stats.js';
import { medianPer, peakRssText, rotated, row, SIDE_NAMES, sideBySideUnavailable, sideRatio, tenTimesKcmRow, skippedAll, trafficText, type Side } from './side-by-side.js';

const NAME = 'real-bind';

export interface ControllerBind extends BindSample {
  traffic: AuditWindowCounts;
}

export interface RealBindSamples {
  n: number;
  floorMs: number[];
  ours: ControllerBind[];
  kcm: ControllerBind[];
}

async function bindWith(opts: BenchOptions, side: Side, n: number): Promise<ControllerBind> {
  return withKubeApiServer(opts, `kube-bind-${side}`, async (server) => {
    const launch: LaunchController =
      side === 'ours' ? launchOurController(opts, OUR_MATCHING_FLAGS) : () => startKubeControllerManager(server.plane);
    const sample = await runBind(opts, server, newRunId(), n, launch);
    return { ...sample, traffic: await controllerTraffic(server, side, sample.windowWallMs) };
  });
}

async function measureSize(opts: BenchOptions, n: number): Promise<RealBindSamples> {
  const samples: RealBindSamples = { n, floorMs: [], ours: [], kcm: [] };
  const reps = heavyRepetitions(opts);
  for (let rep = 0; rep < reps; rep++) {
    for (const side of rotated(['floor', 'ours', 'kcm'] as const, rep)) {
      note(`[${NAME}] n=${n} repetition ${rep + 1}/${reps}: ${side === 'floor' ? 'write floor' : SIDE_NAMES[side]}`);
      if (side === 'floor') {
        const floor = await withKubeApiServer(opts, 'kube-floor', (server) => measureFloorOn(opts, server, newRunId(), n, `kube-apiserver ${n}`));
        samples.floorMs.push(floor.ms);
      } else {
        samples[side].push(await bindWith(opts, side, n));
      }
    }
  }
  return samples;
}

function pairsPerSecond(s: RealBindSamples, side: Side): number[] {
  return s[side].map((b) => (s.n * 1000) / b.bindMs);
}

function latencyText(binds: readonly ControllerBind[]): string {
  const all = binds.flatMap((b) => b.latenciesMs);
  return `create→Bound p50 ${formatNumber(percentile(all, 50))} ms, p99 ${formatNumber(percentile(all, 99))} ms`;
}

/** Per-repetition p-th percentile of create→Bound. */
function latencyPercentiles(binds: readonly ControllerBind[], p: number): number[] {
  return binds.map((b) => percentile(b.latenciesMs, p) ?? 0);
}

/** "pv-controller 1.16×, kube-controller-manager 2.63× (medians: …)": per-repetition ratios, then the times they came from. */
function floorRatios(s: RealBindSamples): string {
  const seconds = (ms: number[]): string => `${((median(ms) ?? 0) / 1000).toFixed(2)} s`;
  const bindMs = (side: Side): number[] => s[side].map((b) => b.bindMs);
  const ratios = (['ours', 'kcm'] as const).map((side) => `${SIDE_NAMES[side]} ${sideRatio(bindMs(side), s.floorMs)}`);
  return `${ratios.join(', ')} (median times: ours ${seconds(bindMs('ours'))}, KCM ${seconds(bindMs('kcm'))}, floor ${seconds(s.floorMs)})`;
}

function cpuText(s: RealBindSamples): string {
  const ctl = (side: Side): Array<number | null> => s[side].map((b) => b.controllerCpuMs);
  const srv = (side: Side): Array<number | null> => s[side].map((b) => b.serverCpuMs);
  return [
    `${SIDE_NAMES.ours} ${medianPer(ctl('ours'), s.n)} ms, ${SIDE_NAMES.kcm} ${medianPer(ctl('kcm'), s.n)} ms (ours/KCM ${sideRatio(ctl('ours'), ctl('kcm'))})`,
    `kube-apiserver + etcd ${medianPer(srv('ours'), s.n)} ms with ours, ${medianPer(srv('kcm'), s.n)} ms with KCM`,
  ].join('; ');
}

export function realBindRows(s: RealBindSamples): ResultRow[] {
  const size = formatNumber(s.n);
  const floorSeconds = (median(s.floorMs) ?? 0) / 1000;
  const bindRow = (side: Side): ResultRow =>
    row(NAME, `bind ${size} pairs, ${SIDE_NAMES[side]}`, `${formatNumber(median(pairsPerSecond(s, side)))} pairs/s; ${latencyText(s[side])}`);
  const rows = [
    row(NAME, `write floor, kube-apiserver, ${size} pairs`, `${floorSeconds.toFixed(2)} s = ${formatNumber(s.n / floorSeconds)} pairs/s (${FLOOR_WRITES_PER_PAIR} writes each)`),
    bindRow('ours'),
    bindRow('kcm'),
    row(
      NAME,
      `ours / KCM, ${size} pairs`,
      `pairs/s ${sideRatio(pairsPerSecond(s, 'ours'), pairsPerSecond(s, 'kcm'))}; ` +
        `create→Bound p50 ${sideRatio(latencyPercentiles(s.ours, 50), latencyPercentiles(s.kcm, 50))}, ` +
        `p99 ${sideRatio(latencyPercentiles(s.ours, 99), latencyPercentiles(s.kcm, 99))}`,
    ),
    row(NAME, `bind time / write floor, ${size}`, floorRatios(s)),
    tenTimesKcmRow(NAME, `binding beside KCM and the floor, ${size}`, { ours: s.ours.map((b) => b.bindMs), kcm: s.kcm.map((b) => b.bindMs), floor: s.floorMs }),
    row(NAME, `CPU per bound claim, ${size}`, cpuText(s)),
    row(NAME, `controller peak RSS, ${size}+${size}`, peakRssText(s.ours.map((b) => b.controllerPeakRssBytes), s.kcm.map((b) => b.controllerPeakRssBytes))),
    row(
      NAME,
      `API traffic per bound claim (audit log), ${size}`,
      `${SIDE_NAMES.ours} ${trafficText(s.ours.map((b) => b.traffic), s.n)}; KCM ${trafficText(s.kcm.map((b) => b.traffic), s.n)}`,
    ),
  ];
  for (const side of ['ours', 'kcm'] as const) {
    const misbound = s[side].filter((b) => b.distinctVolumes !== s.n).length;
    if (misbound > 0) {
      rows.push({ scenario: NAME, label: `binding correctness, ${SIDE_NAMES[side]}, ${size}`, status: 'failed', measured: `${misbound} run(s) bound claims to fewer than ${size} distinct volumes` });
    }
  }
  return rows;
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const why = await sideBySideUnavailable(opts, true);
  if (why) return skippedAll(NAME, 'bind beside kube-controller-manager', why);
  const rows: ResultRow[] = [];
  const details: RealBindSamples[] = [];
  for (const n of opts.sizes ?? (opts.quick ? [100] : [1000, 10_000])) {
    try {
      const samples = await measureSize(opts, n);
      details.push(samples);
      rows.push(...realBindRows(samples));
    } catch (err) {
      rows.push(failedRow(NAME, `${formatNumber(n)} pairs`, err));
    }
  }
  return { rows, details: { concurrency: opts.concurrency, sizes: details } };
}

export const realBindScenario: Scenario = {
  name: NAME,
  aliases: ['kcm-bind'],
  description: 'bind N pre-created pairs with pv-controller, then kube-controller-manager, beside the kube-apiserver write floor',
  run,
};
