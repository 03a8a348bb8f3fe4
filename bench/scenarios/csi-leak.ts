/**
 * `--scenario csi-leak [--provisioner external-provisioner|pv-controller|both] [--rounds N]`:
 * issue 26's leak experiment (bench/csi/leak.ts) on the real control plane with Kubernetes' CSI
 * mock driver behind our proxy, for each provisioner under test in turn: a claim deleted while
 * CreateVolume's answer is held, the provisioner SIGKILLed and restarted, N rounds. Reports the
 * driver volumes no PV refers to, per round and in total, and duplicate CreateVolume calls.
 */
import { runLeakExperiment, type LeakResult } from '../csi/leak.js';
import { note } from '../progress.js';
import { checkAtMost, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { perProvisioner } from './csi-side-by-side.js';

const NAME = 'csi-leak';

export function leakRounds(opts: Pick<BenchOptions, 'rounds' | 'quick'>): number {
  return opts.rounds ?? (opts.quick ? 3 : 20);
}

export function leakRows(r: LeakResult): ResultRow[] {
  const n = r.rounds.length;
  const leakyRounds = r.rounds.filter((x) => x.leaked.length > 0).length;
  const rounds = r.rounds.map((x) => x.leaked.length).join(' ');
  const target = r.provisioner === 'pv-controller' ? checkAtMost(r.leakedTotal, 0, '0 leaked') : undefined;
  return [
    {
      scenario: NAME,
      label: `${r.provisioner}: claim deleted mid-CreateVolume + SIGKILL, ${n} rounds`,
      status: 'ok',
      measured: `${r.leakedTotal} leaked volume(s) in ${leakyRounds}/${n} rounds (per round: ${rounds}); PV-list cross-check ${r.orphansByPvList} orphan(s)`,
      target,
    },
    {
      scenario: NAME,
      label: `${r.provisioner}: duplicate CreateVolume`,
      status: 'ok',
      measured: `${r.namesCalledMoreThanOnce} name(s) called more than once (max ${r.maxCallsPerName} calls); max ${r.maxNamesPerClaim} name(s) per claim`,
    },
  ];
}

export const csiLeakScenario: Scenario = {
  name: NAME,
  aliases: ['leak'],
  description: 'claims deleted while CreateVolume is in flight, provisioner killed and restarted: driver volumes leaked (external-provisioner vs ours)',
  run(opts: BenchOptions): Promise<ScenarioResult> {
    return perProvisioner(opts, NAME, {}, (world) => runLeakExperiment(world, leakRounds(opts), note), leakRows);
  },
};
