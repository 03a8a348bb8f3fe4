/**
 * `--delete` of a sweep plan: the orphans only, snapshots first (Cinder refuses to delete a
 * volume with snapshots; EBS and GCE do not mind the order), then volumes, one at a time. Each
 * volume is read again just before its delete and must still be an orphan by the same rules
 * (proven ours, old enough, not attached); the cloud's own "attached" refusal is reported as kept.
 * A snapshot's delete goes through the snapshot capability, which refuses one without the
 * cluster's tag. Nothing is deleted when a list failed.
 */
import type { Logger } from 'pino';
import { PluginError } from '../../plugins/api/errors.js';
import type { CloudSweeper } from '../../plugins/cloud-common/sweep.js';
import { type SweepItem, type SweepPlan, volumeItem } from './plan.js';

export type SweepOutcome = 'deleted' | 'absent' | 'kept' | 'failed';

export interface SweepResult {
  item: SweepItem;
  outcome: SweepOutcome;
  /** Why it was kept, or the failure. */
  detail: string;
}

export async function executeSweep(sweeper: CloudSweeper, plan: SweepPlan, logger?: Logger): Promise<SweepResult[]> {
  if (plan.failures.length > 0) return [];
  const results: SweepResult[] = [];
  const snapshotsLeft = new Map(plan.snapshots.map((s) => [s.id, s]));
  for (const snapshot of plan.snapshots.filter((s) => s.status === 'orphan')) {
    const result = await attempt(snapshot, async () => {
      await sweeper.deleteSnapshot(snapshot.id, plan.clusterName);
      return 'deleted';
    });
    if (result.outcome === 'deleted') snapshotsLeft.delete(snapshot.id);
    results.push(log(logger, result));
  }
  const judge = { clusterName: plan.clusterName, olderThanMs: plan.olderThanMs, now: plan.now, maxNameLength: sweeper.maxNameLength };
  for (const volume of plan.volumes.filter((v) => v.status === 'orphan')) {
    const blocking = sweeper.snapshotsBlockVolumeDelete ? [...snapshotsLeft.values()].find((s) => s.sourceVolumeId === volume.id) : undefined;
    if (blocking !== undefined) {
      results.push(log(logger, { item: volume, outcome: 'kept', detail: `snapshot ${blocking.id} (${blocking.status}) of it is not deleted` }));
      continue;
    }
    const result = await attempt(volume, async () => {
      const now = await sweeper.describeVolume(volume.id);
      if (now === undefined) return 'absent';
      const again = volumeItem(now, judge);
      if (again.status !== 'orphan') return { kept: `changed since it was listed: ${again.status}: ${again.reason}` };
      return sweeper.deleteVolume(volume.id);
    });
    results.push(log(logger, result));
  }
  return results;
}

async function attempt(item: SweepItem, run: () => Promise<'deleted' | 'absent' | { kept: string }>): Promise<SweepResult> {
  try {
    const done = await run();
    return typeof done === 'string' ? { item, outcome: done, detail: '' } : { item, outcome: 'kept', detail: done.kept };
  } catch (err) {
    if (err instanceof PluginError && err.code === 'InUse') return { item, outcome: 'kept', detail: err.message };
    return { item, outcome: 'failed', detail: err instanceof Error ? err.message : String(err) };
  }
}

function log(logger: Logger | undefined, result: SweepResult): SweepResult {
  const fields = { kind: result.item.kind, id: result.item.id, name: result.item.name, outcome: result.outcome, detail: result.detail };
  if (result.outcome === 'failed') logger?.warn(fields, 'cloud sweep: delete failed');
  else logger?.info(fields, `cloud sweep: ${result.item.kind} ${result.outcome}`);
  return result;
}
