/**
 * `--scenario csi-leak [--provisioner external-provisioner|pv-controller|both] [--rounds N]`:
 * issue 26's leak experiment (bench/csi/leak.ts) on the real control plane with Kubernetes' CSI
 * mock driver behind our proxy, for each provisioner under test in turn: a claim deleted while
 * CreateVolume's answer is held, the provisioner SIGKILLed and restarted, N rounds. Reports the
 * driver volumes no PV refers to, per round and in total, and duplicate CreateVolume calls.
 */
import { join } from 'node:path';
import { csiPeersUnavailable, type ProvisionerKind } from '../csi/binaries.js';
import { runLeakExperiment, type LeakResult } from '../csi/leak.js';
import { startCsiWorld } from '../csi/world.js';
import { note } from '../progress.js';
import { checkAtMost, failedRow, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';

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

async function runFor(opts: BenchOptions, kind: ProvisionerKind, rounds: number): Promise<LeakResult> {
  const world = await startCsiWorld({ provisioner: kind, dir: join(opts.workDir, `${NAME}-${kind}`), workers: opts.concurrency });
  try {
    return await runLeakExperiment(world, rounds, note);
  } finally {
    await world.stop();
  }
}

export const csiLeakScenario: Scenario = {
  name: NAME,
  aliases: ['leak'],
  description: 'claims deleted while CreateVolume is in flight, provisioner killed and restarted: driver volumes leaked (external-provisioner vs ours)',
  async run(opts: BenchOptions): Promise<ScenarioResult> {
    const rows: ResultRow[] = [];
    const details: Record<string, unknown> = { rounds: leakRounds(opts) };
    for (const kind of opts.provisioners) {
      const why = csiPeersUnavailable(kind);
      if (why) {
        rows.push(skippedRow(NAME, kind, why));
        continue;
      }
      try {
        const result = await runFor(opts, kind, leakRounds(opts));
        rows.push(...leakRows(result));
        details[kind] = result;
      } catch (err) {
        rows.push(failedRow(NAME, kind, err));
        details[kind] = { error: String(err) };
      }
    }
    return { rows, details };
  },
};
