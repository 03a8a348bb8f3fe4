/**
 * What `pv-controller orphans --cloud` needs of a cloud plugin when the cluster is gone: the
 * volumes and snapshots carrying a cluster's tag with everything a person decides on (size,
 * creation time, every tag, whether a machine still uses it), one volume read again just before
 * its delete, and the deletes. The proof that a volume is ours is the caller's
 * (cloud-common/proof.ts); these calls only list, read and delete, each one retried
 * under the cloud's error classification (throttling backs off), every list followed to its last
 * page.
 */
import type { CloudSnapshot } from './snapshots.js';
import type { Tags } from './tags.js';

/** The clouds the sweep knows, as `--cloud` names them. */
export const SWEEP_CLOUDS = ['aws', 'gce', 'cinder'] as const;
export type SweepCloud = (typeof SWEEP_CLOUDS)[number];

export interface SweepVolume {
  /** The handle deletes take: an EBS volume id, a GCE `zones/<z>/disks/<name>`, a Cinder uuid. */
  id: string;
  /** Its name: the EBS Name tag, the GCE disk name, the Cinder volume name. */
  name: string;
  sizeGiB: number;
  /** Undefined when the cloud did not say (the sweep then never deletes it). */
  createdAt?: Date;
  /** Every tag (EBS tags, the JSON in a GCE disk's description, Cinder metadata). */
  tags: Tags;
  /** The cloud's own state word (`available`, `READY`, `in-use`, ...). */
  state: string;
  /** Attached to (or used by) a machine: never deleted. */
  inUse: boolean;
  /** Whether the state allows a delete (not creating, deleting, attaching, ...). */
  settled: boolean;
}

export interface SweepSnapshot {
  /** The handle deletes take (as VolumeSnapshotContent's snapshotHandle). */
  id: string;
  name: string;
  sizeGiB: number;
  createdAt?: Date;
  tags: Tags;
  /** The `id` of the volume it was cut from, in SweepVolume's form when the cloud says. */
  sourceVolumeId: string;
  state: string;
  /** Whether the state allows a delete (ready or failed, not still being cut). */
  settled: boolean;
}

export interface CloudSweeper {
  readonly cloud: SweepCloud;
  /** The longest volume name the plugin makes (naming.ts shortens the cluster-name prefix to fit). */
  readonly maxNameLength: number;
  /** Whether the cloud refuses to delete a volume that still has snapshots (Cinder): snapshots go first. */
  readonly snapshotsBlockVolumeDelete: boolean;
  /** Volumes carrying the cluster tag `kubernetes.io/cluster/<clusterName>` (filtered by the cloud), every page. */
  listVolumes(clusterName: string): Promise<SweepVolume[]>;
  /** Snapshots carrying that cluster tag, every page. */
  listSnapshots(clusterName: string): Promise<SweepSnapshot[]>;
  /** One volume as it is now; undefined when it is gone. */
  describeVolume(id: string): Promise<SweepVolume | undefined>;
  /** Deletes a volume; one already gone is 'absent'; the cloud refusing because it is attached is PluginError 'InUse'. */
  deleteVolume(id: string): Promise<'deleted' | 'absent'>;
  /** Deletes a snapshot only when it still carries the cluster's tag (cloud-common/snapshots.ts); gone is success. */
  deleteSnapshot(id: string, clusterName: string): Promise<void>;
}

/** A SweepVolume from what a cloud's volume says, `settled` from the states the cloud deletes in. */
export function sweepVolume(
  id: string,
  name: string,
  fields: { sizeGiB: number; createdAt?: Date; tags: Tags; state: string; inUse: boolean },
  settledStates: ReadonlySet<string>,
): SweepVolume {
  const { createdAt, ...rest } = fields;
  return { id, name, ...rest, ...(createdAt ? { createdAt } : {}), settled: settledStates.has(fields.state) };
}

/** A creation time as the cloud wrote it; undefined when missing or unreadable. */
export function parseCreated(text: string | undefined): Date | undefined {
  if (text === undefined || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) || ms <= 0 ? undefined : new Date(ms);
}

/** A snapshot's creation time from a CloudSnapshot, where the epoch stands for "unknown". */
export function knownDate(date: Date | undefined): Date | undefined {
  return date === undefined || !(date.getTime() > 0) ? undefined : date;
}

/** A snapshot as the snapshot capability's backend reads it, in the sweep's form (`sourceVolumeId` in SweepVolume's id form). */
export function sweepSnapshotOf(s: CloudSnapshot, sourceVolumeId = s.sourceVolumeId): SweepSnapshot {
  const createdAt = knownDate(s.createdAt);
  return {
    id: s.id,
    name: s.name,
    sizeGiB: s.sizeGiB,
    ...(createdAt ? { createdAt } : {}),
    tags: s.tags,
    sourceVolumeId,
    state: s.ready ? 'ready' : s.failed ? 'failed' : 'pending',
    settled: s.ready || s.failed,
  };
}

/** The sweeper of a cloud plugin that has one (the three cloud plugins do). */
export function sweeperOf(plugin: object): CloudSweeper | undefined {
  const candidate = plugin as { sweeper?: unknown };
  return typeof candidate.sweeper === 'function' ? (candidate.sweeper as () => CloudSweeper).call(plugin) : undefined;
}
