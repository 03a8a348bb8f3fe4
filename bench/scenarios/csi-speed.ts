/**
 * `--scenario csi-speed [--provisioner ...] [--provision-n N]`: N claims (default 1,000; quick 50)
 * of the CSI mock driver's class provisioned until Bound and deleted until the driver has no
 * volume, by external-provisioner (with kube-controller-manager's binder) and by ours: claims/s,
 * create→Bound p50/p99, CPU per volume and peak RSS (bench/csi/speed.ts).
 */
import { measureSpeed, type SpeedSample } from '../csi/speed.js';
import type { BenchOptions, ResultRow, Scenario, ScenarioResult } from '../scenario.js';
import { formatNumber } from '../stats.js';
import { cpuText, megabytes, perProvisioner, phaseText } from './csi-side-by-side.js';

const NAME = 'csi-speed';

function claims(opts: BenchOptions): number {
  return opts.provisionSizes?.[0] ?? (opts.quick ? 50 : 1000);
}

function rows(s: SpeedSample): ResultRow[] {
  const size = formatNumber(s.n);
  const row = (label: string, measured: string): ResultRow => ({ scenario: NAME, label: `${s.provisioner}: ${label}`, status: 'ok', measured });
  return [
    row(`provision ${size} CSI claims to Bound`, phaseText(s.provision, 'claims')),
    row('volumes made by the driver (first to last CreateVolume OK)', `${formatNumber(s.driverCreatesPerSecond, 1)} volumes/s`),
    row(`delete ${size} claims until the driver has no volume`, phaseText(s.delete, 'claims')),
    row('CPU per volume, provision', cpuText(s.provisioner, s.provision, 'csi-provisioner')),
    row('CPU per volume, delete', cpuText(s.provisioner, s.delete, 'csi-provisioner')),
    row('peak RSS', megabytes(s.peakRssBytes)),
  ];
}

export const csiSpeedScenario: Scenario = {
  name: NAME,
  aliases: [],
  description: 'N CSI claims provisioned and deleted through the mock driver: external-provisioner vs ours (claims/s, create→Bound, CPU, RSS)',
  run(opts: BenchOptions): Promise<ScenarioResult> {
    const n = claims(opts);
    return perProvisioner(opts, NAME, {}, (world) => measureSpeed(world, n, opts.concurrency), rows);
  },
};
