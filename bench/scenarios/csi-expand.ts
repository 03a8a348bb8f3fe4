/**
 * `--scenario csi-expand [--provisioner ...] [--provision-n N]`: N bound claims of the CSI mock
 * driver's class (default 200; quick 20) grown from 1Gi to 2Gi, by external-resizer and by ours:
 * expansions/s, request→capacity-updated p50/p99 (the claim's status.capacity), CPU per volume
 * and peak RSS of the expanding process (bench/csi/speed.ts). Ours also provisioned the claims
 * in the same process, so its peak RSS includes that.
 */
import { measureExpand, type ExpandSample } from '../csi/speed.js';
import type { BenchOptions, ResultRow, Scenario, ScenarioResult } from '../scenario.js';
import { formatNumber } from '../stats.js';
import { cpuText, megabytes, perProvisioner, phaseText, underTestName } from './csi-side-by-side.js';

const NAME = 'csi-expand';

function claims(opts: BenchOptions): number {
  return opts.provisionSizes?.[0] ?? (opts.quick ? 20 : 200);
}

function rows(s: ExpandSample): ResultRow[] {
  const row = (label: string, measured: string): ResultRow => ({ scenario: NAME, label: `${underTestName(s.provisioner, 'external-resizer')}: ${label}`, status: 'ok', measured });
  return [
    row(`expand ${formatNumber(s.n)} bound claims 1Gi → 2Gi`, phaseText(s.expand, 'expansions')),
    row('CPU per expansion', cpuText(s.provisioner, s.expand, 'csi-resizer', true)),
    row('peak RSS of the expanding process', megabytes(s.peakRssBytes)),
  ];
}

export const csiExpandScenario: Scenario = {
  name: NAME,
  aliases: [],
  description: 'N bound CSI claims expanded through the mock driver: external-resizer vs ours (expansions/s, request→capacity, CPU, RSS)',
  run(opts: BenchOptions): Promise<ScenarioResult> {
    const n = claims(opts);
    return perProvisioner(opts, NAME, { resizer: true }, (world) => measureExpand(world, n, opts.concurrency), rows);
  },
};
