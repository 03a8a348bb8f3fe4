/**
 * What `pv-controller orphans --cloud aws|gce|cinder` runs (orphans.ts defines its flags): the
 * sweep of a gone cluster's cloud volumes and snapshots, with cloud credentials and no cluster.
 * Lists and judges them (controller/cloud-sweep/plan.ts), prints the plan, and with `--delete`
 * (confirmed by typing the cluster name, or `--yes`) deletes the orphans and prints each result.
 *
 * Exit status: 0; 1 when a list failed (nothing is then deleted), a delete failed, or the
 * confirmation was not given; 2 on bad flags (orphans.ts).
 */
import { createInterface } from 'node:readline/promises';
import { createControllerLogger, executeSweep, planSweep, type SweepPlan, type SweepResult } from '../controller/index.js';
import { buildCloudPlugin, type CloudSettings } from '../plugins/from-options.js';
import { type SweepCloud, sweeperOf } from '../plugins/cloud-common/sweep.js';
import { planTable, resultTable, summarize, sweepJson } from './orphans-cloud-report.js';

export interface CloudSweepSettings {
  cloud: SweepCloud;
  clusterName: string;
  olderThanMs: number;
  delete: boolean;
  /** Delete without asking (scripts). */
  yes: boolean;
  output: 'table' | 'json';
  gceProject?: string;
  gceEndpoint?: string;
  logFormat: 'json' | 'text';
  logLevel: string;
}

/** The answer to the confirmation prompt; injectable for tests. */
export type Confirm = (question: string) => Promise<string>;

async function askOnTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export function cloudSettingsOf(s: Pick<CloudSweepSettings, 'cloud' | 'gceProject' | 'gceEndpoint'>): CloudSettings {
  return {
    provider: s.cloud === 'cinder' ? 'openstack' : s.cloud,
    ...(s.gceProject ? { gceProject: s.gceProject } : {}),
    ...(s.gceEndpoint ? { gceEndpoint: s.gceEndpoint } : {}),
  };
}

export async function runCloudSweep(s: CloudSweepSettings, confirm: Confirm = askOnTerminal): Promise<number> {
  const logger = createControllerLogger(s.logFormat, s.logLevel);
  const sweeper = sweeperOf(await buildCloudPlugin(cloudSettingsOf(s), logger));
  if (sweeper === undefined) throw new Error(`the ${s.cloud} plugin cannot sweep`);
  const plan = await planSweep(sweeper, { clusterName: s.clusterName, olderThanMs: s.olderThanMs });
  const dryRun = !s.delete;
  for (const failure of plan.failures) process.stderr.write(`pv-controller orphans: ${s.cloud}: ${failure}\n`);
  if (s.output === 'table') printPlan(plan, dryRun);
  const orphans = summarize(plan, undefined);
  if (plan.failures.length > 0 || !s.delete || orphans.orphanVolumes + orphans.orphanSnapshots === 0) {
    if (s.output === 'json') process.stdout.write(sweepJson(plan, dryRun));
    if (plan.failures.length > 0 && s.delete) process.stderr.write('Nothing was deleted: a list failed, so the picture is incomplete.\n');
    return plan.failures.length > 0 ? 1 : 0;
  }
  if (!s.yes) {
    const what = `${orphans.orphanVolumes} volume(s) (${orphans.orphanVolumeGiB} GiB) and ${orphans.orphanSnapshots} snapshot(s)`;
    const answer = await confirm(`Delete ${what} of cluster "${s.clusterName}" for good? Type the cluster name to confirm: `);
    if (answer.trim() !== s.clusterName) {
      process.stderr.write('Not confirmed: nothing was deleted.\n');
      if (s.output === 'json') process.stdout.write(sweepJson(plan, true));
      return 1;
    }
  }
  const results = await executeSweep(sweeper, plan, logger);
  if (s.output === 'json') process.stdout.write(sweepJson(plan, false, results));
  else printResults(results);
  return results.some((r) => r.outcome === 'failed') ? 1 : 0;
}

function printPlan(plan: SweepPlan, dryRun: boolean): void {
  const items = plan.volumes.length + plan.snapshots.length;
  if (items === 0) {
    process.stderr.write(`No volume or snapshot carries the tag of cluster "${plan.clusterName}".\n`);
    return;
  }
  process.stdout.write(planTable(plan, dryRun));
  const sum = summarize(plan, undefined);
  const found = `${sum.orphanVolumes} orphaned volume(s) (${sum.orphanVolumeGiB} GiB) and ${sum.orphanSnapshots} snapshot(s) of cluster "${plan.clusterName}"; ${sum.skipped} skipped.`;
  process.stderr.write(dryRun ? `${found} Dry run: nothing deleted (add --delete).\n` : `${found}\n`);
}

function printResults(results: SweepResult[]): void {
  if (results.length === 0) return;
  process.stdout.write(`\n${resultTable(results)}`);
  const failed = results.filter((r) => r.outcome === 'failed').length;
  const kept = results.filter((r) => r.outcome === 'kept').length;
  process.stderr.write(`${results.length - failed - kept} deleted, ${kept} kept, ${failed} failed.\n`);
}
