/**
 * What the cloud plugins' snapshots share: the refusals that guard a snapshot delete, and the
 * flow of "find this cluster's snapshot of that name, else cut it".
 *
 * A snapshot handle is untrusted: a pre-provisioned VolumeSnapshotContent names whatever a user
 * wrote. So a cloud plugin deletes a snapshot only when the handle has its cloud's format
 * (ownsSnapshot) and the snapshot carries this cluster's tag — or, for the handle of a
 * pre-provisioned content whose deletionPolicy is Delete (`preProvisioned`), because that policy
 * names it. Either way only in the plugin's own account or project.
 */
import type { Logger } from 'pino';
import { PluginError } from '../api/errors.js';
import type { DeleteSnapshotRequest, SnapshotRequest, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { GIB, roundUpToGiB } from './size.js';
import { isOwnedByCluster, type Tags } from './tags.js';

/** PluginError 'Unsafe' (not retryable) for a handle not of this cloud's format: nothing is called. */
export function assertSnapshotHandle(owns: boolean, snapshotId: string, noun: string): void {
  if (!owns) throw new PluginError('Unsafe', `"${snapshotId}" is no ${noun} handle: not touching it`, false);
}

/** PluginError 'Unsafe' unless the snapshot carries the request's cluster tag or the request names a pre-provisioned handle. */
export function assertMayDeleteSnapshot(req: DeleteSnapshotRequest, tags: Tags, noun: string): void {
  if (req.preProvisioned === true) return;
  if (req.clusterName === undefined || req.clusterName === '') {
    throw new PluginError('Unsafe', `deleting ${noun} ${req.snapshotId} needs the cluster whose tag it must carry (or a pre-provisioned handle): not deleting it`, false);
  }
  if (!isOwnedByCluster(tags, req.clusterName)) {
    throw new PluginError('Unsafe', `${noun} ${req.snapshotId} does not carry the tag of cluster "${req.clusterName}": not deleting it`, false);
  }
}

/** The state of a cloud snapshot as the capability reports it. */
export interface CloudSnapshot {
  id: string;
  name: string;
  sourceVolumeId: string;
  sizeGiB: number;
  createdAt: Date;
  ready: boolean;
  failed: boolean;
  tags: Tags;
}

export function snapshotInfo(s: CloudSnapshot): VolumeSnapshotInfo {
  return { snapshotName: s.name, snapshotId: s.id, sourceVolumeId: s.sourceVolumeId, sizeBytes: BigInt(s.sizeGiB) * GIB, createdAt: s.createdAt, readyToUse: s.ready };
}

/** How one cloud finds, cuts, reads and discards its snapshots (each method one attempt, retried by the caller). */
export interface SnapshotBackend {
  /** What the cloud calls a snapshot (`EBS snapshot`). */
  noun: string;
  /** Whether a handle has this cloud's snapshot format. */
  owns(id: string): boolean;
  /** This cluster's snapshots named `req.snapshotName` (by tag or by name), failed ones included. */
  findOwned(req: SnapshotRequest, signal: AbortSignal): Promise<CloudSnapshot[]>;
  cut(req: SnapshotRequest, sourceVolumeId: string, signal: AbortSignal): Promise<CloudSnapshot>;
  /** One snapshot by handle; undefined when it does not exist. */
  describe(id: string, signal: AbortSignal): Promise<CloudSnapshot | undefined>;
  /** The snapshots carrying the cluster's tag (the plugin filters them again by isOwnedByCluster). */
  listOfCluster(clusterName: string, signal: AbortSignal): Promise<CloudSnapshot[]>;
  remove(id: string, signal: AbortSignal): Promise<'deleted' | 'absent'>;
}

/**
 * One attempt of createSnapshot: this cluster's snapshot of that name when it exists (of the same
 * volume, else refused for good), else a new one. A snapshot the cloud failed to cut is deleted
 * and the attempt fails retryably, so the next one cuts it again.
 */
export async function findOrCutSnapshot(b: SnapshotBackend, req: SnapshotRequest, sourceVolumeId: string, signal: AbortSignal): Promise<CloudSnapshot> {
  const found = (await b.findOwned(req, signal)).sort((x, y) => x.id.localeCompare(y.id));
  for (const failed of found.filter((s) => s.failed)) {
    await b.remove(failed.id, signal);
    throw new PluginError('Backend', `${b.noun} ${failed.id} of ${req.snapshotName} failed; it was deleted and will be cut again`, true);
  }
  const existing = found[0];
  if (existing === undefined) return b.cut(req, sourceVolumeId, signal);
  if (existing.sourceVolumeId !== sourceVolumeId) {
    throw new PluginError('Backend', `${b.noun} ${req.snapshotName} (${existing.id}) exists as a snapshot of ${existing.sourceVolumeId}, not of ${sourceVolumeId}`, false);
  }
  return existing;
}

export type RetryingCall = <T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => Promise<T>;

/** The snapshot capability's create, delete and list for one cloud, every call retried under its classification. */
export class CloudSnapshotOps {
  constructor(
    private readonly b: SnapshotBackend,
    private readonly call: RetryingCall,
    private readonly logger: Logger,
  ) {}

  async create(req: SnapshotRequest, sourceVolumeId: string): Promise<VolumeSnapshotInfo> {
    const found = await this.call(`find or cut ${this.b.noun}`, (s) => findOrCutSnapshot(this.b, req, sourceVolumeId, s), req.signal);
    this.logger.info({ snapshotName: req.snapshotName, snapshotId: found.id, volumeId: sourceVolumeId, readyToUse: found.ready }, `${this.b.noun} taken`);
    return snapshotInfo(found);
  }

  /** Deletes a snapshot the handle names, after the refusals at the top of this file; gone is success. */
  async delete(req: DeleteSnapshotRequest): Promise<void> {
    assertSnapshotHandle(this.b.owns(req.snapshotId), req.snapshotId, this.b.noun);
    const found = await this.call(`describe ${this.b.noun}`, (s) => this.b.describe(req.snapshotId, s), req.signal);
    const outcome = found === undefined ? 'absent' : await this.deleteFound(req, found);
    this.logger.info({ snapshotId: req.snapshotId, outcome, preProvisioned: req.preProvisioned === true }, `${this.b.noun} ${outcome === 'deleted' ? 'deleted' : 'already gone'}`);
  }

  private deleteFound(req: DeleteSnapshotRequest, found: CloudSnapshot): Promise<'deleted' | 'absent'> {
    assertMayDeleteSnapshot(req, found.tags, this.b.noun);
    return this.call(`delete ${this.b.noun}`, (s) => this.b.remove(req.snapshotId, s), req.signal);
  }

  async list(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return (await this.listTagged(clusterName)).map(snapshotInfo);
  }

  /** The snapshots carrying this cluster's tag as the cloud describes them (every tag, state): what the cloud sweep reads. */
  async listTagged(clusterName: string): Promise<CloudSnapshot[]> {
    const listed = await this.call(`list ${this.b.noun}s`, (s) => this.b.listOfCluster(clusterName, s));
    return listed.filter((s) => isOwnedByCluster(s.tags, clusterName));
  }
}

/** The GiB of a volume restored from a snapshot: what the claim asks, and never less than the snapshot holds. */
export function restoreSizeGiB(requestBytes: bigint, restoreBytes: bigint | undefined): number {
  const asked = roundUpToGiB(requestBytes);
  return restoreBytes === undefined ? asked : Math.max(asked, roundUpToGiB(restoreBytes));
}
