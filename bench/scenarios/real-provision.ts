/**
 * `--real-cluster` provision: N host-path claims provisioned and then deleted (policy Delete) by
 * our controller (host-path plugin on a fresh root under the bench's scratch directory), then by
 * kube-controller-manager's own host-path provisioner (`--enable-hostpath-provisioner`: it puts
 * every volume in /tmp/hostpath_pv/<uuid>, and its deleter removes only paths matching "/tmp/.+").
 * One StorageClass `kubernetes.io/host-path` serves both. Each run has its own fresh etcd +
 * kube-apiserver; the measurement itself is the provision scenario's (binding/provision-run.ts).
 */
import type { AuditWindowCounts } from '../../tools/cluster/audit.js';
import { runProvisionFloor, type FloorSample } from '../binding/provision-floor.js';
import { runProvision, type ProvisionLauncher, type ProvisionSample } from '../binding/provision-run.js';
import { newRunId } from '../fixtures.js';
import {
  controllerTraffic,
  OUR_MATCHING_FLAGS,
  removeKcmHostPathVolumes,
  startKubeControllerManager,
  withKubeApiServer,
} from '../proc/kube-control-plane.js';
import { note } from '../progress.js';
import { failedRow, heavyRepetitions, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, median } from '../stats.js';
import { hostPathRootFlag, launchHostPathController } from './provision.js';
import { medianPer, peakRssText, rotated, row, SIDE_NAMES, sideBySideUnavailable, sideRatio, tenTimesKcmRow, skippedAll, trafficText, type Side } from './side-by-side.js';

const NAME = 'real-provision';

type Way = 'provision' | 'delete';

export interface ControllerProvision extends ProvisionSample {
  auditTraffic: Record<Way, AuditWindowCounts>;
}

export interface RealProvisionSamples {
  n: number;
  ours: ControllerProvision[];
  kcm: ControllerProvision[];
  /** The same requests and file-system work by bare loops on a kube-apiserver of its own (provision-floor.ts). */
  floors: FloorSample[];
}

async function provisionWith(opts: BenchOptions, side: Side, n: number): Promise<ControllerProvision> {
  return withKubeApiServer(opts, `kube-provision-${side}`, async (server) => {
    const launch: ProvisionLauncher =
      side === 'ours'
        ? launchHostPathController(opts, hostPathRootFlag()!, OUR_MATCHING_FLAGS)
        : () => startKubeControllerManager(server.plane, true);
    try {
      const sample = await runProvision(opts, server, newRunId(), n, launch);
      return {
        ...sample,
        auditTraffic: {
          provision: await controllerTraffic(server, side, sample.windowsWallMs.provision),
          delete: await controllerTraffic(server, side, sample.windowsWallMs.delete),
        },
      };
    } finally {
      await removeKcmHostPathVolumes(server.plane).catch(() => undefined);
    }
  });
}

function perSecond(samples: readonly ControllerProvision[], n: number, way: Way): number[] {
  return samples.map((s) => (n * 1000) / (way === 'provision' ? s.provisionMs : s.deleteMs));
}

function cpuText(s: RealProvisionSamples): string {
  const ways = (side: Side): string =>
    (['provision', 'delete'] as const).map((way) => `${way} ${medianPer(s[side].map((x) => x.traffic[way].controllerCpuMsPerVolume), 1)} ms`).join(', ');
  const ratio = (way: Way): string =>
    sideRatio(s.ours.map((x) => x.traffic[way].controllerCpuMsPerVolume), s.kcm.map((x) => x.traffic[way].controllerCpuMsPerVolume));
  return `${SIDE_NAMES.ours} ${ways('ours')}; KCM ${ways('kcm')} (ours/KCM provision ${ratio('provision')}, delete ${ratio('delete')})`;
}

export function realProvisionRows(s: RealProvisionSamples): ResultRow[] {
  const size = formatNumber(s.n);
  const rate = (side: Side, way: Way): string => formatNumber(median(perSecond(s[side], s.n, way)));
  const rows = (['ours', 'kcm'] as const).map((side) =>
    row(NAME, `provision + delete ${size} host-path claims, ${SIDE_NAMES[side]}`, `provision ${rate(side, 'provision')} claims/s, delete ${rate(side, 'delete')} claims/s`),
  );
  const ratio = (way: Way): string => sideRatio(perSecond(s.ours, s.n, way), perSecond(s.kcm, s.n, way));
  const traffic = (side: Side): string =>
    (['provision', 'delete'] as const).map((way) => `${way} ${trafficText(s[side].map((x) => x.auditTraffic[way]), s.n)}`).join('; ');
  const times = (way: Way): { ours: number[]; kcm: number[]; floor: number[] } => {
    const ms = (x: { provisionMs: number; deleteMs: number }): number => (way === 'provision' ? x.provisionMs : x.deleteMs);
    return { ours: s.ours.map(ms), kcm: s.kcm.map(ms), floor: s.floors.map(ms) };
  };
  const floorRate = (way: Way): string => formatNumber(median(times(way).floor.map((ms) => (s.n * 1000) / ms)));
  rows.push(
    row(NAME, `floor (the same requests and file-system work by bare loops), kube-apiserver, ${size}`, `provision ${floorRate('provision')} claims/s, delete ${floorRate('delete')} claims/s`),
    row(NAME, `ours / KCM, ${size} claims`, `provision claims/s ${ratio('provision')}, delete claims/s ${ratio('delete')}`),
    tenTimesKcmRow(NAME, `provisioning beside KCM and the floor, ${size}`, times('provision')),
    tenTimesKcmRow(NAME, `deleting beside KCM and the floor, ${size}`, times('delete')),
    row(NAME, `controller CPU per volume, ${size}`, cpuText(s)),
    row(NAME, `controller peak RSS, ${size} claims`, peakRssText(s.ours.map((x) => x.controllerPeakRssBytes), s.kcm.map((x) => x.controllerPeakRssBytes))),
    row(NAME, `API traffic per volume (audit log), ${SIDE_NAMES.ours}`, traffic('ours')),
    row(NAME, `API traffic per volume (audit log), ${SIDE_NAMES.kcm}`, traffic('kcm')),
  );
  for (const side of ['ours', 'kcm'] as const) {
    const wrong = s[side].find((x) => x.directoriesAfterProvision !== s.n || x.directoriesAfterDelete !== 0);
    if (wrong) {
      rows.push({
        scenario: NAME,
        label: `host-path directories, ${SIDE_NAMES[side]}`,
        status: 'failed',
        measured: `${wrong.directoriesAfterProvision} after provisioning ${s.n}, ${wrong.directoriesAfterDelete} left after deleting`,
      });
    }
  }
  return rows;
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const why = (await sideBySideUnavailable(opts, true)) ?? (hostPathRootFlag() ? undefined : '`pv-controller controller` has no host-path root flag');
  if (why) return skippedAll(NAME, 'provision and delete beside kube-controller-manager', why);
  const n = opts.sizes ? Math.min(...opts.sizes) : opts.quick ? 50 : 1000;
  const samples: RealProvisionSamples = { n, ours: [], kcm: [], floors: [] };
  const reps = heavyRepetitions(opts);
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const side of rotated(['floor', 'ours', 'kcm'] as const, rep)) {
        note(`[${NAME}] n=${n} repetition ${rep + 1}/${reps}: ${side === 'floor' ? 'floor' : SIDE_NAMES[side]}`);
        if (side === 'floor') samples.floors.push(await withKubeApiServer(opts, 'kube-provision-floor', (server) => runProvisionFloor(opts, server, newRunId(), n)));
        else samples[side].push(await provisionWith(opts, side, n));
      }
    }
  } catch (err) {
    return { rows: [failedRow(NAME, `${formatNumber(n)} claims`, err)], details: { samples } };
  }
  return { rows: realProvisionRows(samples), details: { samples } };
}

export const realProvisionScenario: Scenario = {
  name: NAME,
  aliases: ['kcm-provision'],
  description: 'provision and delete N host-path claims with pv-controller, then kube-controller-manager\'s host-path provisioner',
  run,
};
