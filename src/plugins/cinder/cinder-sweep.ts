/**
 * The cloud sweep's calls for Cinder (cloud-common/sweep.ts): volumes and snapshots listed with
 * the cluster tag as a metadata filter (every marker page), one volume read, DELETE of a volume,
 * and the snapshot capability's guarded snapshot delete. Cinder refuses to delete a volume that
 * still has snapshots, so the sweep deletes snapshots first. Each call retried by the plugin.
 */
import { TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { CloudSnapshotOps, RetryingCall } from '../cloud-common/snapshots.js';
import { type CloudSweeper, type SweepSnapshot, sweepSnapshotOf, sweepVolume, type SweepVolume } from '../cloud-common/sweep.js';
import { clusterTagKey } from '../cloud-common/tags.js';
import type { CinderClient, CinderVolume } from './cinder-client.js';

/** Statuses Cinder deletes a volume in. */
const SETTLED = new Set(['available', 'error']);

export function sweepVolumeOfCinder(v: CinderVolume): SweepVolume {
  const inUse = v.attachmentCount > 0 || v.status === 'in-use';
  return sweepVolume(v.id, v.name, { sizeGiB: v.sizeGiB, createdAt: v.createdAt, tags: v.metadata, state: v.status, inUse }, SETTLED);
}

export class CinderSweeper implements CloudSweeper {
  readonly cloud = 'cinder';
  readonly snapshotsBlockVolumeDelete = true;

  constructor(
    private readonly cinder: CinderClient,
    private readonly snapshots: CloudSnapshotOps,
    private readonly call: RetryingCall,
    readonly maxNameLength: number,
  ) {}

  async listVolumes(clusterName: string): Promise<SweepVolume[]> {
    const filter = { metadata: { [clusterTagKey(clusterName)]: TAG_CLUSTER_OWNED } };
    return (await this.call('list volumes', (s) => this.cinder.list(filter, s))).map(sweepVolumeOfCinder);
  }

  async listSnapshots(clusterName: string): Promise<SweepSnapshot[]> {
    return (await this.snapshots.listTagged(clusterName)).map((s) => sweepSnapshotOf(s));
  }

  async describeVolume(id: string): Promise<SweepVolume | undefined> {
    const volume = await this.call('GET volume', (s) => this.cinder.get(id, s));
    return volume === undefined ? undefined : sweepVolumeOfCinder(volume);
  }

  deleteVolume(id: string): Promise<'deleted' | 'absent'> {
    return this.call('DELETE volume', (s) => this.cinder.delete(id, s));
  }

  deleteSnapshot(id: string, clusterName: string): Promise<void> {
    return this.snapshots.delete({ snapshotId: id, clusterName });
  }
}
