/**
 * The cloud sweep's calls for GCE (cloud-common/sweep.ts): disks.aggregatedList and
 * snapshots.list filtered by the cluster's label (every page), disks.get, disks.delete waited
 * for, and the snapshot capability's guarded delete. A disk's tags are the JSON in its
 * description (labels.ts); the label only narrows the list. Each call retried by the plugin.
 */
import { TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { WaitPolicy } from '../cloud-common/options.js';
import type { CloudSnapshotOps, RetryingCall } from '../cloud-common/snapshots.js';
import { type CloudSweeper, type SweepSnapshot, sweepSnapshotOf, sweepVolume, type SweepVolume } from '../cloud-common/sweep.js';
import { clusterTagKey } from '../cloud-common/tags.js';
import { PluginError } from '../api/errors.js';
import type { ComputeClient, GceDisk } from './compute-client.js';
import type { DiskRef, GceDiskTargets } from './disk-targets.js';
import { labelKeyOf, tagsOfDescription } from './labels.js';

/** Disk statuses a delete is allowed in. */
const SETTLED = new Set(['READY', 'FAILED']);
const DISK_ID = /^(zones|regions)\/([a-z0-9-]+)\/disks\/([a-z]([-a-z0-9]{0,61}[a-z0-9])?)$/;

/** `zones/<zone>/disks/<name>` (or `regions/…`): the id the sweep reports and deletes by. */
export function diskIdOf(disk: DiskRef): string {
  return `${disk.location.scope}/${disk.location.name}/disks/${disk.name}`;
}

function diskRefOfId(id: string): DiskRef {
  const m = DISK_ID.exec(id);
  if (!m) throw new PluginError('Unsafe', `"${id}" is not a GCE disk id (zones/<zone>/disks/<name>): not touching it`, false);
  return { name: m[3], location: { scope: m[1] as 'zones' | 'regions', name: m[2] } };
}

export function sweepVolumeOfDisk(d: GceDisk): SweepVolume {
  const fields = { sizeGiB: d.sizeGb, createdAt: d.createdAt, tags: tagsOfDescription(d.description), state: d.status, inUse: d.users.length > 0 };
  return sweepVolume(diskIdOf(d), d.name, fields, SETTLED);
}

export class GceSweeper implements CloudSweeper {
  readonly cloud = 'gce';
  readonly snapshotsBlockVolumeDelete = false;

  constructor(
    private readonly compute: ComputeClient,
    private readonly targets: GceDiskTargets,
    private readonly projectId: () => Promise<string>,
    private readonly snapshots: CloudSnapshotOps,
    private readonly call: RetryingCall,
    private readonly wait: WaitPolicy,
    readonly maxNameLength: number,
  ) {}

  async listVolumes(clusterName: string): Promise<SweepVolume[]> {
    const project = await this.projectId();
    const filter = `labels.${labelKeyOf(clusterTagKey(clusterName))} = "${TAG_CLUSTER_OWNED}"`;
    return (await this.call('disks.aggregatedList', (s) => this.compute.aggregatedDisks(project, filter, s))).map(sweepVolumeOfDisk);
  }

  async listSnapshots(clusterName: string): Promise<SweepSnapshot[]> {
    const prefix = `projects/${await this.projectId()}/`;
    return (await this.snapshots.listTagged(clusterName)).map((s) =>
      sweepSnapshotOf(s, s.sourceVolumeId.startsWith(prefix) ? s.sourceVolumeId.slice(prefix.length) : s.sourceVolumeId),
    );
  }

  async describeVolume(id: string): Promise<SweepVolume | undefined> {
    const ref = diskRefOfId(id);
    const project = await this.projectId();
    const disk = await this.call('disks.get', (s) => this.compute.getDisk(project, ref.location, ref.name, s));
    return disk === undefined ? undefined : sweepVolumeOfDisk(disk);
  }

  async deleteVolume(id: string): Promise<'deleted' | 'absent'> {
    const ref = diskRefOfId(id);
    return this.targets.deleteDisk(await this.projectId(), ref, undefined, this.wait);
  }

  deleteSnapshot(id: string, clusterName: string): Promise<void> {
    return this.snapshots.delete({ snapshotId: id, clusterName });
  }
}
