/**
 * The snapshot capability, declared ahead of the snapshot issue: no plugin implements it yet, and
 * the conformance suite fails any plugin that claims it before then. It is shaped after CSI's
 * CreateSnapshot / DeleteSnapshot / ListSnapshots and CreateVolume with a volume content source,
 * so a CSI driver whose ControllerGetCapabilities lists CREATE_DELETE_SNAPSHOT (and CLONE_VOLUME)
 * maps onto it one to one.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface SnapshotRequest {
  /** Deterministic per VolumeSnapshotContent (`snapshot-<VolumeSnapshot uid>`): creating it again returns the same snapshot. */
  snapshotName: string;
  clusterName: string;
  /** The volume to snapshot. */
  pv: PersistentVolume;
  /** The VolumeSnapshotClass parameters. */
  parameters: Record<string, string>;
  signal?: AbortSignal;
}

export interface VolumeSnapshotInfo {
  snapshotName: string;
  /** The backend's own id, as VolumeSnapshotContent's snapshotHandle. */
  snapshotId: string;
  /** The backend id of the volume it was taken from. */
  sourceVolumeId: string;
  /** Bytes a volume restored from it needs at least. */
  sizeBytes: bigint;
  createdAt: Date;
  /** False while the backend is still cutting it. */
  readyToUse: boolean;
}

export interface DeleteSnapshotRequest {
  snapshotId: string;
  signal?: AbortSignal;
}

export interface Snapshotter {
  /** Takes a snapshot of a volume, idempotently per snapshotName. */
  createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo>;
  /** Deletes a snapshot; one already gone is success. */
  deleteSnapshot(req: DeleteSnapshotRequest): Promise<void>;
  /** Snapshots on the backend marked as this cluster's. */
  listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]>;
  /** Provisions a new volume with a snapshot's contents (a claim's dataSource is a VolumeSnapshot); idempotent per backing name. */
  provisionFromSnapshot(req: ProvisionRequest, snapshotId: string): Promise<ProvisionedVolume>;
  /** Provisions a new volume with another volume's contents (a claim's dataSource is a claim); idempotent per backing name. */
  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume>;
}

export const SNAPSHOT = defineCapability<Snapshotter>()('snapshot', [
  'createSnapshot',
  'deleteSnapshot',
  'listSnapshots',
  'provisionFromSnapshot',
  'provisionClone',
]);

export function canSnapshot(plugin: VolumePlugin): plugin is VolumePlugin & Snapshotter {
  return SNAPSHOT.claimedBy(plugin);
}
