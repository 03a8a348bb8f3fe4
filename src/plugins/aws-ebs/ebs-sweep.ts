/**
 * The cloud sweep's calls for EBS (cloud-common/sweep.ts): DescribeVolumes and DescribeSnapshots
 * filtered by the cluster tag (every NextToken page), DescribeVolumes of one id, DeleteVolume,
 * and the snapshot capability's guarded DeleteSnapshot. Each call retried by the plugin.
 */
import { TAG_AWS_NAME, TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { CloudSnapshotOps, RetryingCall } from '../cloud-common/snapshots.js';
import { type CloudSweeper, type SweepSnapshot, sweepSnapshotOf, sweepVolume, type SweepVolume } from '../cloud-common/sweep.js';
import { clusterTagKey } from '../cloud-common/tags.js';
import type { EbsVolume, Ec2Volumes } from './ec2-volumes.js';

/** EBS states a volume may be deleted in (in-use is the attachment, reported apart). */
const SETTLED = new Set(['available', 'error']);

export function sweepVolumeOfEbs(v: EbsVolume): SweepVolume {
  const inUse = v.attached || v.state === 'in-use';
  return sweepVolume(v.id, v.tags[TAG_AWS_NAME] ?? '', { sizeGiB: v.sizeGiB, createdAt: v.createdAt, tags: v.tags, state: v.state, inUse }, SETTLED);
}

export class EbsSweeper implements CloudSweeper {
  readonly cloud = 'aws';
  readonly snapshotsBlockVolumeDelete = false;

  constructor(
    private readonly ec2: Ec2Volumes,
    private readonly snapshots: CloudSnapshotOps,
    private readonly call: RetryingCall,
    readonly maxNameLength: number,
  ) {}

  async listVolumes(clusterName: string): Promise<SweepVolume[]> {
    const filters = [{ Name: `tag:${clusterTagKey(clusterName)}`, Values: [TAG_CLUSTER_OWNED] }];
    return (await this.call('DescribeVolumes', (s) => this.ec2.list(filters, s))).map(sweepVolumeOfEbs);
  }

  async listSnapshots(clusterName: string): Promise<SweepSnapshot[]> {
    return (await this.snapshots.listTagged(clusterName)).map((s) => sweepSnapshotOf(s));
  }

  async describeVolume(id: string): Promise<SweepVolume | undefined> {
    const volume = await this.call('DescribeVolumes', (s) => this.ec2.describe(id, s));
    return volume === undefined ? undefined : sweepVolumeOfEbs(volume);
  }

  deleteVolume(id: string): Promise<'deleted' | 'absent'> {
    return this.call('DeleteVolume', (s) => this.ec2.delete(id, s));
  }

  deleteSnapshot(id: string, clusterName: string): Promise<void> {
    return this.snapshots.delete({ snapshotId: id, clusterName });
  }
}
