/**
 * The snapshot capability: cut, delete and list a volume's point-in-time copies, and provision a
 * volume from one (restore) or from another volume (clone). It is shaped after CSI's
 * CreateSnapshot / DeleteSnapshot / ListSnapshots and CreateVolume with a volume content source,
 * so a CSI driver whose ControllerGetCapabilities lists CREATE_DELETE_SNAPSHOT (and CLONE_VOLUME)
 * maps onto it one to one.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionedVolume, ProvisionRequest, VolumeContentSource, VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface SnapshotRequest {
  /**
   * Deterministic per VolumeSnapshotContent (`<cluster>-snapshot-<VolumeSnapshot uid>`, shortened as
   * naming.ts shortens backing names): creating it again returns the same snapshot, never a second.
   */
  snapshotName: string;
  clusterName: string;
  /** The volume to snapshot. */
  pv: PersistentVolume;
  /** The VolumeSnapshotClass parameters. */
  parameters: Record<string, string>;
  /** Who it is for, tagged on the backend snapshot as volumes carry their claim's (cloud tags; CSI's extra-create-metadata). */
  snapshot: { name: string; namespace: string; contentName: string };
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
  /** The VolumeSnapshotClass parameters when the class still exists (CSI: the snapshotter secret). */
  parameters?: Record<string, string>;
  /** The content's annotations (CSI: the deletion-secret annotations the content was given). */
  annotations?: Record<string, string>;
  /**
   * The cluster whose mark a cloud snapshot must carry to be deleted (the cluster tag, as
   * listSnapshots finds them). A cloud plugin refuses (Unsafe) to delete a snapshot without it,
   * or with it absent, unless `preProvisioned` says otherwise.
   */
  clusterName?: string;
  /**
   * True only for the handle of a pre-provisioned VolumeSnapshotContent (`spec.source.snapshotHandle`,
   * written by a user) whose deletionPolicy is Delete: the policy names the snapshot, so a cloud
   * plugin deletes it without this cluster's mark — still only a handle of its own cloud's format
   * (ownsSnapshot) in its own project. Absent or false: the snapshot must carry `clusterName`'s mark.
   */
  preProvisioned?: boolean;
  /** The VolumeSnapshotContent's name (CSI: resolves `${volumesnapshotcontent.name}` in the class's secret templates). */
  contentName?: string;
  signal?: AbortSignal;
}

/**
 * A snapshot a claim is restored from: its handle, and what its VolumeSnapshotContent says of it
 * (restoreSize in bytes, already checked against the claim's request; the source volume's mode
 * when the content records it). The provisioner also sets it as the request's contentSource.
 */
export type SnapshotSource = Omit<Extract<VolumeContentSource, { kind: 'snapshot' }>, 'kind'>;

export interface Snapshotter {
  /**
   * Whether provisionClone works (CSI: CLONE_VOLUME among the controller capabilities). A plugin
   * that cuts snapshots but cannot clone throws PluginError NotSupported from provisionClone.
   */
  readonly supportsClone: boolean;
  /**
   * Whether this plugin instance may act on a snapshot handle: its own kind of handle, and for a
   * node-scoped plugin (a node agent) only handles of its own node's snapshots. The snapshot
   * controller deletes a handle only through a plugin that owns it.
   */
  ownsSnapshot(snapshotId: string): boolean;
  /** Takes a snapshot of a volume, idempotently per snapshotName. */
  createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo>;
  /** Deletes a snapshot; one already gone is success. */
  deleteSnapshot(req: DeleteSnapshotRequest): Promise<void>;
  /** Snapshots on the backend marked as this cluster's. */
  listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]>;
  /** Provisions a new volume with a snapshot's contents (a claim's dataSource is a VolumeSnapshot); idempotent per backing name. */
  provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume>;
  /** Provisions a new volume with another volume's contents (a claim's dataSource is a claim); idempotent per backing name. */
  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume>;
}

export const SNAPSHOT = defineCapability<Snapshotter>()('snapshot', [
  'ownsSnapshot',
  'createSnapshot',
  'deleteSnapshot',
  'listSnapshots',
  'provisionFromSnapshot',
  'provisionClone',
]);

export function canSnapshot(plugin: VolumePlugin): plugin is VolumePlugin & Snapshotter {
  return SNAPSHOT.claimedBy(plugin);
}
